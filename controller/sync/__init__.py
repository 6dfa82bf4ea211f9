"""The table's MQTT link to the floor's host (DESIGN.md, How data flows; Wire format).

- :mod:`.messages`, :mod:`.events` and :mod:`.topics`: the wire format, defined once (the
  host bridge imports them too); :mod:`.events` holds the event kinds and the
  schema-version rules.
- :mod:`.ledger`: the table's durable state as a fold over its events (a hand is its log;
  undo and corrections rebuild it).
- :class:`.journal.Journal`: every accepted event in SQLite (WAL, ``synchronous=FULL``)
  before it is shown or sent; crash recovery (CRASH-1).
- :class:`.outbox.Outbox`: the :class:`.outbox.EventSink` the live table writes to;
  store-and-forward to the host, pruned by its acks.
- :class:`.commands.CommandDesk`: host commands, each run at most once, every one answered.
- :class:`.link.TableLink`: the aiomqtt connection, reconnecting with backoff.
"""
