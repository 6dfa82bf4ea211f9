"""Board profiles: one TOML file per table build, validated into frozen data (``specs``).

Every error names the file, the line, what is wrong and how to fix it. ``tomllib`` gives
no line numbers for values, so ``profile_checks.SourceLines`` finds the line of a key or
table itself.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from pathlib import Path
from typing import Any

from . import backends, pins
from .errors import ProfileError
from .profile_checks import ADD_HINTS, Path_, ProfileChecker
from .sharing import check_sharing
from .specs import (
    DEFAULT_BACKEND,
    BuzzerSpec,
    DebounceSpec,
    DisplaySpec,
    KeypadSpec,
    LightSpec,
    Profile,
    ReaderSpec,
    SeatSpec,
)

__all__ = [
    "PROFILE_DIR",
    "BuzzerSpec",
    "DebounceSpec",
    "DisplaySpec",
    "KeypadSpec",
    "LightSpec",
    "Profile",
    "ProfileError",
    "ReaderSpec",
    "SeatSpec",
    "load_profile",
    "parse_profile",
    "profile_path",
    "shipped_keymaps",
    "shipped_profiles",
]

PROFILE_DIR = Path(__file__).resolve().parents[2] / "hardware"
KEYMAP_DIR = PROFILE_DIR / "keypads"  # the dealer keypads' key maps, one TOML per keypad

READER_KINDS = ("mfrc522", "pn532", "seatnode", "mock")
LIGHT_KINDS = ("led", "pwm_led", "seatnode_ring", "mock")
BLINDS_KINDS = ("ssd1306", "mock")
CLOCK_KINDS = ("max7219", "ht16k33", "mock")
BUZZER_KINDS = ("gpio", "mock")
DEALER_DISPLAY_KINDS = ("ssd1306", "mock")
KEYPAD_KINDS = ("evdev", "mock")
MIN_SEATS, MAX_SEATS = 2, 10

_TOP = (
    "table",
    "debounce",
    "seat",
    "board",
    "muck",
    "deck",
    "keys",
    "blinds_display",
    "shot_clock",
    "buzzer",
    "keypad",
    "dealer_display",
)
_SPI = tuple(pins.SPI_BUSES)
_I2C = tuple(pins.I2C_BUSES)


def _reader(c: ProfileChecker, data: dict[str, Any], path: Path_, name: str,
            slot: str) -> ReaderSpec:
    what = f"reader {name}"
    kind = c.kind(data, READER_KINDS, path, what)
    line = c.line(path)
    if kind == "mfrc522":
        c.only(data, ("kind", "bus", "cs", "cs_pin", "reset_pin"), path, f"{what} (mfrc522)")
        bus = c.text(data, "bus", path, what, _SPI)
        ncs = len(pins.SPI_BUSES[bus][1])
        cs = c.integer(data, "cs", path, what, required=False, lo=0, hi=ncs - 1)
        cs_pin = c.gpio(data, "cs_pin", path, what, required=False)
        if (cs is None) == (cs_pin is None):
            raise c.fail(
                path,
                f"{what} needs exactly one chip select",
                "give `cs = 0` (the bus's CE0/CE1) or `cs_pin = <GPIO>`, not both",
            )
        reset = c.gpio(data, "reset_pin", path, what, required=False)
        return ReaderSpec(
            name,
            kind,
            line,
            bus=bus,
            cs=cs,
            cs_pin=cs_pin,
            reset_pin=reset,
            slot=slot,
            multi_tag=True,
            key_lines=c.key_lines(data, path),
        )
    if kind == "pn532":
        allowed = ("kind", "bus", "address", "mux", "channel", "reset_pin")
        c.only(data, allowed, path, f"{what} (pn532)")
        bus = c.text(data, "bus", path, what, _I2C)
        addr = c.integer(data, "address", path, what, required=False, lo=0x08, hi=0x77)
        mux = c.integer(data, "mux", path, what, required=False, lo=0x70, hi=0x77)
        channel = c.integer(data, "channel", path, what, required=False, lo=0, hi=7)
        if (mux is None) != (channel is None):
            raise c.fail(
                path,
                f"{what} gives only one of `mux` and `channel`",
                "give both (`mux = 0x70`, `channel = 3`) behind a TCA9548A, or none",
            )
        reset = c.gpio(data, "reset_pin", path, what, required=False)
        return ReaderSpec(
            name,
            kind,
            line,
            bus=bus,
            address=0x24 if addr is None else addr,
            mux=mux,
            channel=channel,
            reset_pin=reset,
            slot=slot,
            multi_tag=True,
            key_lines=c.key_lines(data, path),
        )
    if kind == "seatnode":
        c.only(data, ("kind", "port", "node"), path, f"{what} (seatnode)")
        port = c.text(data, "port", path, what)
        node = c.integer(data, "node", path, what, lo=1, hi=31)
        return ReaderSpec(
            name,
            kind,
            line,
            port=port,
            node=node,
            slot=slot,
            multi_tag=True,
            key_lines=c.key_lines(data, path),
        )
    c.only(data, ("kind", "multi_tag"), path, f"{what} (mock)")
    multi = data.get("multi_tag", True)
    if not isinstance(multi, bool):
        raise c.fail(
            (*path, "multi_tag"),
            f"{what} `multi_tag` must be true or false",
            "write `multi_tag = true`",
        )
    return ReaderSpec(name, kind, line, slot=slot, multi_tag=multi)


def _light(c: ProfileChecker, data: dict[str, Any], path: Path_, seat: int) -> LightSpec:
    what = f"seat {seat} light"
    kind = c.kind(data, LIGHT_KINDS, path, what)
    line = c.line(path)
    if kind in ("led", "pwm_led"):
        c.only(data, ("kind", "pin"), path, what)
        return LightSpec(kind, line, pin=c.gpio(data, "pin", path, what))
    if kind == "seatnode_ring":
        c.only(data, ("kind", "port", "node"), path, what)
        return LightSpec(
            kind,
            line,
            port=c.text(data, "port", path, what),
            node=c.integer(data, "node", path, what, lo=1, hi=31),
        )
    c.only(data, ("kind",), path, what)
    return LightSpec(kind, line)


def _display(
    c: ProfileChecker, data: dict[str, Any], path: Path_, kinds: tuple[str, ...], what: str
) -> DisplaySpec:
    kind = c.kind(data, kinds, path, what)
    line = c.line(path)
    if kind in ("ssd1306", "ht16k33"):
        c.only(data, ("kind", "bus", "address"), path, what)
        default = 0x3C if kind == "ssd1306" else 0x70
        addr = c.integer(data, "address", path, what, required=False, lo=0x08, hi=0x77)
        return DisplaySpec(
            kind,
            line,
            bus=c.text(data, "bus", path, what, _I2C),
            address=default if addr is None else addr,
            key_lines=c.key_lines(data, path),
        )
    if kind == "max7219":
        c.only(data, ("kind", "bus", "cs"), path, what)
        bus = c.text(data, "bus", path, what, _SPI)
        ncs = len(pins.SPI_BUSES[bus][1])
        return DisplaySpec(
            kind,
            line,
            bus=bus,
            cs=c.integer(data, "cs", path, what, lo=0, hi=ncs - 1),
            key_lines=c.key_lines(data, path),
        )
    c.only(data, ("kind",), path, what)
    return DisplaySpec(kind, line)


def _keypad(c: ProfileChecker, data: dict[str, Any]) -> KeypadSpec | None:
    """``[keypad]``: the dealer's USB keypad (evdev) and the key map that names its keys.
    The map's own contents are checked where they are read (``controller.terminal.keymap``);
    here, that the file is there."""
    if "keypad" not in data:
        return None
    path: Path_ = ("keypad",)
    raw = c.table(data, "keypad", ())
    kind = c.kind(raw, KEYPAD_KINDS, path, "keypad")
    c.only(raw, ("kind", "device", "map") if kind == "evdev" else ("kind", "map"), path,
           f"keypad ({kind})")
    maps = tuple(m.stem for m in shipped_keymaps())
    name = c.text(raw, "map", path, "keypad")
    if not (KEYMAP_DIR / f"{name}.toml").is_file():
        near = difflib.get_close_matches(name, maps, n=1)
        raise c.fail((*path, "map"), f"keypad map {name!r} is not in {KEYMAP_DIR}",
                     f"use one of {', '.join(maps)}"
                     + (f" (did you mean {near[0]!r}?)" if near else "")
                     + ", or add hardware/keypads/" + f"{name}.toml")
    device = None
    if kind == "evdev":
        device = c.text(raw, "device", path, "keypad")
        if not device.startswith("/dev/input/"):
            raise c.fail((*path, "device"), f"keypad device {device!r} is not an input device",
                         "give its stable path, /dev/input/by-id/usb-...-event-kbd "
                         "(`ls /dev/input/by-id` lists them)")
    return KeypadSpec(kind, c.line(path), name, device)


def _seats(c: ProfileChecker, data: dict[str, Any]) -> tuple[SeatSpec, ...]:
    table = c.table(data, "table", ())
    count = c.integer(table, "seats", ("table",), "[table]", lo=MIN_SEATS, hi=MAX_SEATS)
    assert count is not None
    raw = data.get("seat", [])
    if not isinstance(raw, list):
        raise c.fail(("seat",), "`seat` must be an array of tables", "write each seat as [[seat]]")
    by_number: dict[int, SeatSpec] = {}
    for i, entry in enumerate(raw):
        path: Path_ = ("seat", i)
        c.only(entry, ("number", "cards", "light", "player"), path, "[[seat]]")
        n = c.integer(entry, "number", path, "[[seat]]", lo=1, hi=count)
        assert n is not None
        if n in by_number:
            raise c.fail(
                (*path, "number"),
                f"seat {n} is given twice (first at line {by_number[n].line})",
                f"renumber one of them; the seats are 1..{count}",
            )
        cards = _reader(c, c.table(entry, "cards", path), (*path, "cards"), f"seat{n}", "cards")
        light = _light(c, c.table(entry, "light", path), (*path, "light"), n)
        player = _reader(
            c, c.table(entry, "player", path), (*path, "player"), f"player{n}", "player"
        )
        by_number[n] = SeatSpec(n, cards, light, player, c.line(path))
    for n in range(1, count + 1):
        if n not in by_number:
            raise c.fail(
                ("table", "seats"),
                f"seat {n} is missing: [table] seats = {count} needs [[seat]] number = 1..{count}",
                f"add a [[seat]] with number = {n}, or lower `seats`",
            )
    return tuple(by_number[n] for n in range(1, count + 1))


def parse_profile(text: str, source: str = "<profile>") -> Profile:
    """Validate a profile's TOML text; raise ``ProfileError`` naming the line and the fix."""
    c = ProfileChecker(text, source)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"at line (\d+)", str(exc))
        raise ProfileError(
            f"not valid TOML ({exc})",
            fix="correct the syntax on that line",
            source=source,
            line=int(m.group(1)) if m else None,
        ) from None
    c.only(data, _TOP, (), "a profile")
    table = c.table(data, "table", ())
    c.only(table, ("name", "description", "seats", "backend"), ("table",), "[table]")
    name = c.text(table, "name", ("table",), "[table]")
    backend = DEFAULT_BACKEND
    if "backend" in table:
        backend = c.text(table, "backend", ("table",), "[table]", backends.names())
    description = str(table.get("description", ""))
    deb = data.get("debounce", {})
    c.only(deb, ("stable_ms", "gone_ms", "poll_ms"), ("debounce",), "[debounce]")
    stable = c.integer(deb, "stable_ms", ("debounce",), "[debounce]", required=False, lo=0, hi=1000)
    gone = c.integer(deb, "gone_ms", ("debounce",), "[debounce]", required=False, lo=50, hi=10000)
    poll = c.integer(deb, "poll_ms", ("debounce",), "[debounce]", required=False, lo=5, hi=1000)
    debounce = DebounceSpec(
        30e-3 if stable is None else stable / 1000,
        0.5 if gone is None else gone / 1000,
        20e-3 if poll is None else poll / 1000,
    )
    seats = _seats(c, data)
    raw_board = data.get("board")
    if not isinstance(raw_board, list) or not raw_board:
        raise c.fail(
            ("board",), "the profile has no board reader", "add at least one [[board]] reader"
        )
    board = tuple(
        _reader(c, b, ("board", i), f"board{i + 1}", "cards") for i, b in enumerate(raw_board)
    )
    muck = _reader(c, c.table(data, "muck", ()), ("muck",), "muck", "cards")
    deck = _reader(c, c.table(data, "deck", ()), ("deck",), "deck", "cards")
    keys_raw = c.table(data, "keys", ())
    keys: dict[str, int] = {}
    for key in keys_raw:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", key):
            raise c.fail(
                ("keys", key),
                f"key name {key!r} is not a lowercase name",
                "use names like `deal` or `call_clock`",
            )
        pin = c.gpio(keys_raw, key, ("keys",), f"key {key!r}")
        assert pin is not None
        keys[key] = pin
    if not keys:
        raise c.fail(("keys",), "[keys] has no keys", ADD_HINTS["keys"])
    blinds = _display(
        c, c.table(data, "blinds_display", ()), ("blinds_display",), BLINDS_KINDS, "blinds display"
    )
    clock = _display(c, c.table(data, "shot_clock", ()), ("shot_clock",), CLOCK_KINDS, "shot clock")
    braw = c.table(data, "buzzer", ())
    bkind = c.kind(braw, BUZZER_KINDS, ("buzzer",), "buzzer")
    c.only(braw, ("kind", "pin") if bkind == "gpio" else ("kind",), ("buzzer",), "buzzer")
    buzzer = BuzzerSpec(
        bkind,
        c.line(("buzzer",)),
        c.gpio(braw, "pin", ("buzzer",), "buzzer", required=bkind == "gpio"),
    )
    dealer = DisplaySpec("mock", 0)
    if "dealer_display" in data:
        dealer = _display(c, c.table(data, "dealer_display", ()), ("dealer_display",),
                          DEALER_DISPLAY_KINDS, "dealer display")
    profile = Profile(
        name,
        description,
        source,
        seats,
        board,
        muck,
        deck,
        keys,
        {k: c.line(("keys", k)) for k in keys},
        blinds,
        clock,
        buzzer,
        debounce,
        backend,
        keypad=_keypad(c, data),
        dealer_display=dealer,
    )
    check_sharing(profile)
    return profile


# ---------------------------------------------------------------- loading
def profile_path(name_or_path: str | Path) -> Path:
    """``virtual`` -> ``hardware/virtual.toml``; a path is returned as it is."""
    p = Path(name_or_path)
    if p.suffix == ".toml" or p.exists():
        return p
    return PROFILE_DIR / f"{p.name}.toml"


def load_profile(name_or_path: str | Path) -> Profile:
    """Read and validate a profile by name (``virtual``, ``tournament-10``) or path.

    A name or file that is not there, or cannot be read, is a ``ProfileError`` that lists
    the shipped profiles.
    """
    path = profile_path(name_or_path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise _not_found(name_or_path, path) from None
    except UnicodeDecodeError:
        raise ProfileError(
            f"profile {path} is not UTF-8 text", fix="save it as UTF-8 TOML"
        ) from None
    except OSError as exc:  # a directory, no permission...
        raise ProfileError(
            f"cannot read profile {path} ({exc.strerror or exc})",
            fix=f"give a readable .toml file, or choose one of {_shipped_names()}",
        ) from None
    return parse_profile(text, source=str(path))


def _shipped_names() -> str:
    return ", ".join(q.stem for q in shipped_profiles())


def _not_found(name_or_path: str | Path, path: Path) -> ProfileError:
    given = str(name_or_path)
    if path.parent != PROFILE_DIR or Path(given).suffix == ".toml":
        return ProfileError(
            f"profile file {given} not found",
            fix=f"check the path, or choose one of {_shipped_names()}",
        )
    near = difflib.get_close_matches(path.stem, [q.stem for q in shipped_profiles()], n=1)
    hint = f" (did you mean {near[0]}?)" if near else ""
    return ProfileError(
        f"profile {given!r} not found",
        fix=f"choose one of {_shipped_names()}{hint}, or give a path to a .toml file",
    )


def shipped_keymaps() -> list[Path]:
    """The key maps in ``hardware/keypads/``, sorted by name."""
    return sorted(KEYMAP_DIR.glob("*.toml"))


def shipped_profiles() -> list[Path]:
    """The profiles in ``hardware/``, sorted by name."""
    return sorted(PROFILE_DIR.glob("*.toml"))
