"""The table's MQTT link to the floor's host (DESIGN.md, How data flows; Wire format).

- :mod:`.messages` and :mod:`.topics`: the wire format's plumbing, defined once (the host
  bridge imports them too): the envelopes that carry :mod:`controller.events` (the one
  vocabulary) on each topic, and the parse functions.
- :mod:`.ledger`: the table's durable state as a fold over its events (a hand is its log;
  undo and corrections rebuild it).
- :class:`.journal.Journal`: every accepted event in SQLite (WAL, ``synchronous=FULL``)
  before it is shown or sent; crash recovery (CRASH-1).
- :class:`.outbox.Outbox`: the :class:`.outbox.EventSink` the live table writes to;
  store-and-forward to the host, pruned by its acks.
- :class:`.commands.CommandDesk`: host commands, each run at most once, every one answered.
- :class:`.link.TableLink`: the aiomqtt connection, reconnecting with backoff.
"""
