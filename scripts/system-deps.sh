#!/usr/bin/env bash
# The Debian packages the tests use, installed where they are missing: Mosquitto (the sync
# and bridge tests start private brokers), PostgreSQL (the bridge's store test starts a
# private server), Debian's Chromium (Playwright drives it for the dashboard tests; no
# browser is downloaded), openssl (the TLS broker test's certificates) and Node.js with npm
# (the firmware on MicroPython's WebAssembly port). Debian bookworm's nodejs 18.20 runs the
# firmware checks and its npm 9.2 reads the lockfile (version 3); a node already installed
# (NodeSource's brings its own npm) is kept. A service installed here is left off: the
# tests run private instances. As root, or through sudo where it asks no password;
# otherwise it says what to install and fails (a missing tool would fail its tests).
set -euo pipefail
need=()
command -v mosquitto >/dev/null || [ -x /usr/sbin/mosquitto ] || need+=(mosquitto)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || command -v initdb >/dev/null \
    || need+=(postgresql)
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v openssl >/dev/null || need+=(openssl)
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then need+=(nodejs npm); fi
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ]; then
    as_root=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
else
    echo "the tests need Debian packages this machine lacks: ${need[*]}" >&2
    echo "install them (sudo apt-get install ${need[*]}), then run bash scripts/test.sh again" >&2
    exit 1
fi
echo "== installing ${need[*]} (Debian packages the tests use)"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
for service in mosquitto postgresql; do
    if [[ " ${need[*]} " == *" $service "* ]]; then
        "${as_root[@]}" systemctl disable --now "$service" >/dev/null 2>&1 || true
    fi
done
