"""What the table is wired to: interfaces, board profiles, and backends chosen by name from
a registry (``backends``: ``"real"`` for the Pi, ``"mock"`` in virtual time). Imports only
the standard library, vendor libraries and ``firmware.link``; every error it raises is a
``errors.DeviceError``."""
