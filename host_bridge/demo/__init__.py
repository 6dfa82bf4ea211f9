"""``pitboss demo``: a whole floor on one machine, with one command (issue 10).

An MQTT broker (the embedded amqtt, or Mosquitto when one is named or already listening
on localhost:1883), the host bridge on SQLite with its dashboard, one table controller
process per table on the virtual profile (mock readers, the virtual dealer and bots), and
a small tournament with accelerated clocks run by the bridge's director (the one its API
serves: the director page and the players' clock screen show it), shown live in the
terminal with ``rich``. At the winner the podium is printed and the floor stays up until
Ctrl-C (``--until-winner``: it stops there). Ctrl-C stops everything and leaves nothing
behind.

- :mod:`.cli`: the command line (``main(argv)``).
- :mod:`.options`: :class:`~.options.DemoOptions`, what a run is asked for.
- :mod:`.floor`: :class:`~.floor.DemoRun`, one run from start to an orderly stop.
- :mod:`.broker`: which broker, and the embedded one.
- :mod:`.tables`: the table controllers as child processes.
- :mod:`.game`: what the tables play (the tournament, or cash games).
- :mod:`.progress`: the terminal view.

The bridge's rooms may not import the live table (DESIGN.md), so the tables run only as
``python -m controller.table_runner table run ...`` processes, exactly as on a floor.
"""
