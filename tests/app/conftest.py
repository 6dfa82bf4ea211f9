"""The app tests use the sync tests' real Mosquitto fixture."""

from tests.sync.conftest import broker

__all__ = ["broker"]
