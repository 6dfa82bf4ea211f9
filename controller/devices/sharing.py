"""Checks across a whole profile: no GPIO, I2C address or seat node is claimed twice."""

from __future__ import annotations

from collections.abc import Iterator

from . import pins
from .errors import ProfileError
from .specs import DisplaySpec, Profile, ReaderSpec


def gpio_users(p: Profile) -> Iterator[tuple[int, str, int]]:
    """Every GPIO the build takes: (BCM pin, who, line), the pins of its buses included."""
    spi_used: dict[str, int] = {}
    i2c_used: dict[str, int] = {}
    ports: dict[str, int] = {}
    for r in p.readers.values():
        if r.bus in pins.SPI_BUSES:
            spi_used.setdefault(r.bus, r.line)
            if r.cs is not None:
                yield pins.SPI_BUSES[r.bus][1][r.cs], f"{r.bus} CE{r.cs}", r.line
            if r.cs_pin is not None:
                yield r.cs_pin, f"reader {r.name} chip select", r.line
        if r.bus in pins.I2C_BUSES:
            i2c_used.setdefault(r.bus, r.line)
        if r.reset_pin is not None:
            yield r.reset_pin, f"reader {r.name} reset", r.line
        if r.port in pins.UART_PORTS:
            ports.setdefault(r.port, r.line)
    for s in p.seats:
        if s.light.pin is not None:
            yield s.light.pin, f"seat {s.number} light", s.light.line
        if s.light.port in pins.UART_PORTS:
            ports.setdefault(s.light.port, s.light.line)
    for d in (p.blinds_display, p.shot_clock, p.dealer_display):
        if d.bus in pins.SPI_BUSES:
            spi_used.setdefault(d.bus, d.line)
            if d.cs is not None:
                yield pins.SPI_BUSES[d.bus][1][d.cs], f"{d.bus} CE{d.cs}", d.line
        if d.bus in pins.I2C_BUSES:
            i2c_used.setdefault(d.bus, d.line)
    for key, pin in p.keys.items():
        yield pin, f"key {key!r}", p.key_lines[key]
    if p.buzzer.pin is not None:
        yield p.buzzer.pin, "buzzer", p.buzzer.line
    for bus, line in spi_used.items():
        for sig, pin in pins.SPI_BUSES[bus][0].items():
            yield pin, f"{bus} {sig}", line
        # even the minimal spiN-1cs overlay claims CE0
        yield pins.SPI_BUSES[bus][1][0], f"{bus} CE0", line
    for bus, line in i2c_used.items():
        for sig, pin in pins.I2C_BUSES[bus].items():
            yield pin, f"{bus} {sig}", line
    for port, line in ports.items():
        for sig, pin in pins.UART_PORTS[port].items():
            yield pin, f"{port} {sig}", line


def check_sharing(p: Profile) -> None:
    """Raise ``ProfileError`` where two devices claim one GPIO, I2C address or seat node."""
    users = sorted(gpio_users(p), key=lambda u: u[2])
    taken: dict[int, tuple[str, int]] = {}
    for pin, who, line in users:
        if pin in taken and taken[pin][0] != who:
            first, first_line = taken[pin]
            free = pins.free_gpios({u[0] for u in users})[:6]
            raise ProfileError(
                f"GPIO{pin} is used twice: by {who} and by {first} (line {first_line})",
                fix=f"move one of them to a free GPIO ({', '.join(map(str, free))}) or another bus",
                source=p.source,
                line=line,
            )
        taken.setdefault(pin, (who, line))
    slots: dict[tuple[object, ...], tuple[str, int]] = {}
    for slot, where, who, line in sorted(_bus_slots(p), key=lambda u: u[3]):
        holder = slots.setdefault(slot, (who, line))
        if holder[0] != who:
            raise ProfileError(
                f"{where} is used twice: by {who} and by {holder[0]} (line {holder[1]})",
                fix="change the address (or chip select), or put one of them on another bus"
                f" ({', '.join(b for b in (*pins.I2C_BUSES, *pins.SPI_BUSES) if b != slot[0])})",
                source=p.source,
                line=line,
            )
    nodes: dict[tuple[str, int], tuple[str, int]] = {}
    for s in p.seats:
        for spec in (s.cards, s.player, s.light):
            if spec.port is None or spec.node is None:
                continue
            owner = (f"seat {s.number}", spec.line)
            holder = nodes.setdefault((spec.port, spec.node), owner)
            if holder[0] != owner[0]:
                raise ProfileError(
                    f"seat node {spec.node} on {spec.port} is used by {owner[0]} "
                    f"and {holder[0]} (line {holder[1]})",
                    fix="give each seat its own node id",
                    source=p.source,
                    line=spec.line,
                )
    for r in (*p.board, p.muck, p.deck):
        if r.kind == "seatnode":
            raise ProfileError(
                f"reader {r.name} is on a seat node, which only serves seats",
                fix='attach it to the Pi (mfrc522 or pn532) or use kind = "mock"',
                source=p.source,
                line=r.line,
            )


def _bus_slots(p: Profile) -> Iterator[tuple[tuple[object, ...], str, str, int]]:
    """(slot key, where in words, who, line) for every I2C address and SPI chip select.

    The line is that of the key that takes the slot (``address``, ``cs``, ``mux``), or of
    the device's table where the slot is a default not written in the file.
    """
    specs: list[tuple[str, ReaderSpec | DisplaySpec]] = [
        (f"reader {r.name}", r) for r in p.readers.values()
    ]
    specs += [("blinds display", p.blinds_display), ("shot clock", p.shot_clock),
              ("dealer display", p.dealer_display)]
    for who, spec in specs:
        bus, addr, cs = spec.bus, spec.address, spec.cs
        mux: int | None = getattr(spec, "mux", None)  # readers only
        channel: int | None = getattr(spec, "channel", None)
        if bus is None:
            continue
        if cs is not None:
            yield (bus, "cs", cs), f"{bus} CE{cs}", who, spec.line_of("cs")
        if addr is None:
            continue
        if mux is not None:
            yield (
                (bus, None, mux),
                f"{bus} address 0x{mux:02X}",
                f"I2C mux 0x{mux:02X}",
                spec.line_of("mux"),
            )
            yield (
                (bus, mux, channel, addr),
                f"{bus} mux 0x{mux:02X} channel {channel} address 0x{addr:02X}",
                who,
                spec.line_of("address" if "address" in dict(spec.key_lines) else "channel"),
            )
        else:
            yield (bus, None, addr), f"{bus} address 0x{addr:02X}", who, spec.line_of("address")
