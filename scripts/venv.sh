# Sourced by the scripts: makes .venv and installs the project into it (editable) when it
# is missing, or when pyproject.toml or the extras changed since the last install.
# PITBOSS_EXTRAS picks the extras (pyproject.toml, "Installs by role"): `test` (the
# default: every role and the test tools, what README's two commands need), `table` on a
# table's Pi, `bridge` or `bridge,postgres` on the floor's server.
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
extras=${PITBOSS_EXTRAS:-test}
stamp=.venv/.pitboss-installed
want="$(sha256sum pyproject.toml | cut -d' ' -f1) [$extras]"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "== installing pitboss[$extras] into .venv"
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e ".[$extras]"
    echo "$want" > "$stamp"
fi
