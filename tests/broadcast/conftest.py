"""The bridge fixtures (tests/bridge/conftest.py) for the broadcast tests: an app on a
fresh SQLite file with a token per role, a fake broker, and a clock the tests move."""

from tests.bridge.conftest import app, bridge, broker, client, clock, settings

__all__ = ["app", "bridge", "broker", "client", "clock", "settings"]
