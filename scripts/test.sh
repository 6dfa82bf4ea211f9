#!/usr/bin/env bash
# The test command (README's second command; CI runs exactly this after .ci/run installs
# the system packages). It installs the Debian packages the tests use where they are
# missing (scripts/system-deps.sh: a test whose tool is missing fails), makes the virtual
# environment on first use, then runs ruff, mypy --strict on every room of the controller
# and the host bridge, and pytest.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh
PITBOSS_EXTRAS=test source scripts/venv.sh  # every role and the test tools
if command -v npm >/dev/null && [ ! -d tests/firmware/mpy/node_modules ]; then
    echo "== installing MicroPython (WebAssembly) for the firmware tests"
    npm ci --prefix tests/firmware/mpy --no-audit --no-fund --loglevel=error
fi
echo "== ruff"
.venv/bin/ruff check .
echo "== mypy --strict (rules, chip race, clocks, devices, table, terminal, sync, app, host bridge)"
.venv/bin/mypy --strict controller/rules controller/chiprace controller/clocks controller/devices \
    controller/table controller/terminal controller/sync controller/app.py controller/table_runner.py controller/table_setup.py \
    host_bridge
echo "== pytest"
.venv/bin/pytest "$@"
