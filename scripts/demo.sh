#!/usr/bin/env bash
# README's first command. Until the floor demo exists (issue 10), it replays real hand
# histories through the rules engine: ../shared/phh beside the checkout, or the folders
# or files you name.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
if [ $# -gt 0 ]; then
    exec .venv/bin/pitboss replay "$@"
fi
if [ -d ../shared/phh ]; then
    exec .venv/bin/pitboss replay ../shared/phh
fi
echo "No hand histories beside this checkout (../shared/phh)." >&2
echo "Name .phh/.phhs files or folders: bash scripts/demo.sh PATH..." >&2
exit 2
