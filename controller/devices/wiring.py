"""Wiring tables and bill of materials for ``hardware/README.md``, generated from the profiles.

``pitboss hardware wiring`` rewrites the generated part of the README;
``pitboss hardware wiring --check`` exits 1 when it is stale (a test runs the check).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from . import pins
from .generated import replace_section, write_or_check
from .profile import PROFILE_DIR, load_profile, shipped_profiles
from .sharing import gpio_users
from .specs import LightSpec, Profile, ReaderSpec

BEGIN = "<!-- BEGIN GENERATED WIRING (controller/devices/wiring.py; do not edit by hand) -->"
END = "<!-- END GENERATED WIRING -->"
README = PROFILE_DIR / "README.md"

PART_NAMES = {
    "mfrc522": "MFRC522 13.56 MHz reader module (SPI)",
    "pn532": "PN532 NFC module (I2C mode)",
    "seatnode": "seat node: RP2040 board + 2 antennas + LED ring",
    "ssd1306": "SSD1306 0.96in 128x64 OLED (I2C)",
    "max7219": "MAX7219 4-digit seven-segment module (SPI)",
    "ht16k33": "HT16K33 4-digit seven-segment backpack (I2C)",
    "led": "5 mm LED + 330 ohm resistor",
    "pwm_led": "5 mm LED + 330 ohm resistor (PWM)",
    "gpio": "active 5 V buzzer + NPN transistor + 1 kohm",
    "key": "12 mm momentary push button",
    "keypad": "48-key programmable USB keypad (Genovation ControlPad CP48 class)",
    "mux": "TCA9548A 8-channel I2C multiplexer",
    "usbhub": "powered USB 2.0 hub, 10 ports (one serial line per seat node)",
    "usbcable": "USB cable to a seat node (under 3 m)",
    "pi": "Raspberry Pi 4 or 5",
}


def _gpio(pin: int | None) -> str:
    return "-" if pin is None else f"GPIO{pin} (pin {pins.HEADER_PIN[pin]})"


def _reader(r: ReaderSpec) -> str:
    if r.kind == "mfrc522":
        cs = f"CE{r.cs}" if r.cs is not None else f"CS {_gpio(r.cs_pin)}"
        return f"MFRC522 on {r.bus}, {cs}"
    if r.kind == "pn532":
        via = f" via mux 0x{r.mux:02X} ch {r.channel}" if r.mux is not None else ""
        return f"PN532 on {r.bus} 0x{r.address or 0:02X}{via}"
    if r.kind == "seatnode":
        return f"seat node {r.node} on {r.port} ({r.slot})"
    return "mock" + ("" if r.multi_tag else " (single tag)")


def _light(light: LightSpec) -> str:
    if light.kind in ("led", "pwm_led"):
        return f"{'PWM ' if light.kind == 'pwm_led' else ''}LED on {_gpio(light.pin)}"
    if light.kind == "seatnode_ring":
        return f"ring on seat node {light.node}"
    return "mock"


def profile_section(p: Profile) -> str:
    """The markdown for one profile: seats, other readers, keys, displays, header, BOM."""
    out = [f"### `{p.name}` ({p.seat_count} seats)", "", p.description, ""]
    out += ["| seat | hole-card reader | action light | player-card reader |", "|---|---|---|---|"]
    out += [
        f"| {s.number} | {_reader(s.cards)} | {_light(s.light)} | {_reader(s.player)} |"
        for s in p.seats
    ]
    out += ["", "| reader | connection |", "|---|---|"]
    out += [f"| `{r.name}` | {_reader(r)} |" for r in (*p.board, p.muck, p.deck)]
    out += ["", "| part | connection |", "|---|---|"]
    out += [f"| key `{k}` | {_gpio(pin)} to GND |" for k, pin in p.keys.items()]
    if p.keypad is not None:
        at = f"USB, {p.keypad.device}" if p.keypad.device else "mock (no device)"
        out.append(f"| dealer keypad | {at}, key map `{p.keypad.map}` |")
    for d, what in ((p.blinds_display, "blinds display"), (p.shot_clock, "shot clock"),
                    (p.dealer_display, "dealer display")):
        where = (
            f"{d.bus} 0x{d.address:02X}"
            if d.address is not None
            else (f"{d.bus} CE{d.cs}" if d.bus else "mock")
        )
        out.append(f"| {what} | {d.kind} on {where} |")
    out.append(f"| buzzer | {p.buzzer.kind} on {_gpio(p.buzzer.pin)} |")
    users: dict[int, list[str]] = {}
    for pin, who, _ in gpio_users(p):
        if who not in users.setdefault(pin, []):
            users[pin].append(who)
    if users:
        out += ["", "| BCM | header pin | used by |", "|---|---|---|"]
        out += [
            f"| GPIO{pin} | {pins.HEADER_PIN[pin]} | {', '.join(users[pin])} |"
            for pin in sorted(users)
        ]
    out += ["", "Bill of materials:", "", "| qty | part |", "|---|---|"]
    out += [f"| {n} | {PART_NAMES[part]} |" for part, n in bill_of_materials(p).items()]
    return "\n".join(out) + "\n"


def bill_of_materials(p: Profile) -> dict[str, int]:
    """Part -> quantity for one table build (mock parts cost nothing)."""
    bom: Counter[str] = Counter({"pi": 1})
    nodes = set()
    for r in p.readers.values():
        if r.kind == "seatnode":
            nodes.add((r.port, r.node))
        elif r.kind != "mock":
            bom[r.kind] += 1
    muxes = {(r.bus, r.mux) for r in p.readers.values() if r.mux is not None}
    bom["mux"] += len(muxes)
    bom["seatnode"] += len(nodes)
    if nodes:  # the link is point to point: one USB serial line (CDC) per node
        bom["usbhub"] += -(-len(nodes) // 10)
        bom["usbcable"] += len(nodes)
    for s in p.seats:
        if s.light.kind in ("led", "pwm_led"):
            bom[s.light.kind] += 1
    for d in (p.blinds_display, p.shot_clock, p.dealer_display):
        if d.kind != "mock":
            bom[d.kind] += 1
    if p.keypad is not None and p.keypad.kind != "mock":
        bom["keypad"] += 1
    if p.buzzer.kind != "mock":
        bom[p.buzzer.kind] += 1
    bom["key"] += len(p.keys)
    return {part: n for part, n in bom.items() if n}


def generated(profiles: list[Profile]) -> str:
    body = "\n".join(profile_section(p) for p in profiles)
    return f"{BEGIN}\n\n{body}\n{END}"


def render(readme_text: str, profiles: list[Profile]) -> str:
    """The README with its generated part replaced (appended if it has none yet)."""
    return replace_section(readme_text, generated(profiles), BEGIN, END)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="pitboss hardware wiring",
        description="Write the wiring tables and BOM in hardware/README.md from the profiles.",
    )
    parser.add_argument("--check", action="store_true", help="exit 1 if the README is stale")
    parser.add_argument("--readme", type=Path, default=README, help="README to update")
    args = parser.parse_args(argv)
    profiles = [load_profile(path) for path in shipped_profiles()]
    current = args.readme.read_text(encoding="utf-8") if args.readme.exists() else ""
    return write_or_check(
        args.readme, render(current, profiles), check=args.check,
        stale="its wiring tables do not match the profiles. Run `pitboss hardware wiring` "
              "(or `python -m controller.devices.wiring`).",
        current=f"{len(profiles)} profiles")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
