#!/usr/bin/env bash
# README's first command: a whole floor on this machine (issue 10). It makes the virtual
# environment on first use, then runs `pitboss demo`: an MQTT broker (the embedded one, or
# the Mosquitto already listening on localhost:1883), the host bridge and its dashboard,
# one table controller process per table, and a small tournament with fast clocks, run by
# the bridge's director (its page and the players' clock screen show it live). At the winner
# it prints the podium and the pages' addresses and stays up until Ctrl-C (--until-winner:
# it stops there).
# Options go to the demo, e.g. bash scripts/demo.sh --tables 6 --players 40 --speed 40
# (bash scripts/demo.sh --help lists them). Ctrl-C stops everything it started.
set -euo pipefail
cd "$(dirname "$0")/.."
PITBOSS_EXTRAS=test source scripts/venv.sh  # the tests' .venv: pitboss[test] has the demo
# exec: the demo takes the terminal's Ctrl-C itself and stops the tables, the bridge and
# the broker in order; nothing is left running
exec .venv/bin/pitboss demo "$@"
