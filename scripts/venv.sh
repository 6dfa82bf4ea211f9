# Sourced by the scripts: makes .venv and installs the project into it (editable, with the
# test extras) when it is missing or pyproject.toml changed since the last install.
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "Pitboss needs Python 3.11 or newer (found $(python3 --version 2>&1))." >&2
    echo "On Debian or Raspberry Pi OS: sudo apt-get install python3 python3-venv" >&2
    exit 1
fi
if [ ! -x .venv/bin/python ]; then
    echo "== making .venv (first run only)"
    python3 -m venv .venv || {
        echo "python3 -m venv failed. On Debian or Raspberry Pi OS: sudo apt-get install python3-venv" >&2
        exit 1
    }
fi
stamp=.venv/.pitboss-installed
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "== installing pitboss and its test tools into .venv"
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e '.[test]'
    echo "$want" > "$stamp"
fi
