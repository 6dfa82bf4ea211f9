"""Device backends by name, as gpiozero chooses pin factories.

A backend builds the parts a board profile names and returns the table's hardware:
``"real"`` (``hardware.RealBackend``: gpiozero, spidev, smbus2, luma, seat-node links) and
``"mock"`` (``mock.MockBackend``: a ``MockTable`` in virtual time). The registry holds, for
each name, the backend's factory or where to import it from (``"module:Name"``, like
gpiozero's ``default_factories``), so this module imports no backend and no backend
imports another. ``open_devices(profile)`` asks the registry for the backend the caller
names, or else the one the profile names (``[table] backend``, ``"real"`` by default)::

    table = open_devices(load_profile("sixmax-pi"))                  # on the Pi
    table = open_devices(load_profile("sixmax-pi"), backend="mock")  # the same build, mocked

Another backend registers itself with ``register("name", Factory)`` before it is asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from .errors import DriverMissingError, UnknownBackendError

if TYPE_CHECKING:
    from .interfaces import Clock
    from .specs import Profile
    from .table_hardware import TableHardware

SHIPPED: dict[str, str] = {
    "real": "controller.devices.hardware:RealBackend",
    "mock": "controller.devices.mock:MockBackend",
}


class Backend(Protocol):
    """A backend, made by its factory with the caller's keyword options."""

    def build(self, profile: Profile, clock: Clock | None = None) -> TableHardware:
        """The table ``profile`` describes, built from this backend's parts."""
        ...


BackendFactory = Callable[..., Backend]

_registry: dict[str, BackendFactory | str] = dict(SHIPPED)


def register(name: str, factory: BackendFactory | str, *, replace: bool = False) -> None:
    """Register a backend under ``name``: its factory, or ``"module:Name"`` to import it
    from when it is first asked for. A name is taken once unless ``replace``."""
    if not name or not name.replace("-", "").replace("_", "").isalnum():
        raise ValueError(f"backend name {name!r}: use letters, digits, - and _")
    if name in _registry and not replace and _registry[name] is not factory:
        raise ValueError(f"a backend is already registered as {name!r}; pass replace=True")
    _registry[name] = factory


def unregister(name: str) -> None:
    """Forget the backend registered as ``name`` (a shipped one comes back as shipped)."""
    _registry.pop(name, None)
    if name in SHIPPED:
        _registry[name] = SHIPPED[name]


def names() -> tuple[str, ...]:
    """Every registered backend name, sorted."""
    return tuple(sorted(_registry))


def backend_factory(name: str) -> BackendFactory:
    """The factory registered as ``name``, imported if need be.

    Raises ``UnknownBackendError`` (with the known names) for a name nobody registered, and
    ``DriverMissingError`` when the backend's module needs a library that is not installed.
    """
    try:
        entry = _registry[name]
    except KeyError:
        raise UnknownBackendError(
            f"no device backend is named {name!r}: choose one of {', '.join(names())}"
        ) from None
    if not isinstance(entry, str):
        return entry
    module_name, _, attr = entry.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        missing = exc.name or ""
        if not missing or missing.partition(".")[0] == module_name.partition(".")[0]:
            raise  # our own module is missing: a broken install or registration, not a driver
        package = ".".join(missing.split(".")[:2 if missing.startswith("luma.") else 1])
        others = ", ".join(n for n in names() if n != name)
        raise DriverMissingError(
            f"the {name!r} device backend needs the `{package}` package, which is not "
            f"installed: pip install {package}, or use another backend ({others})"
        ) from None
    factory: BackendFactory = getattr(module, attr)
    return factory


def open_devices(
    profile: Profile, *, backend: str | None = None, clock: Clock | None = None, **options: Any
) -> TableHardware:
    """Open the table ``profile`` describes on the backend named ``backend`` (default: the
    profile's own). ``options`` go to the backend's factory (``pin_factory``,
    ``seat_link``, ...); ``clock`` defaults to the backend's (real: ``time.monotonic``,
    mock: a new ``VirtualClock``). Every failure is a ``DeviceError`` saying what to do."""
    factory = backend_factory(backend or profile.backend)
    return factory(**options).build(profile, clock)
