"""Entry point of a seat node: build the seat from ``machine`` and run it forever.

On the board this file is ``/main.py`` and the other modules live in ``/firmware/``.
"""

import time

from firmware import config
from firmware.leds import LedRing
from firmware.mfrc522 import MFRC522
from firmware.seatnode import SeatNode


def seat_id():
    try:
        import seat_config  # type: ignore[import-not-found]  # written by the deploy

        return seat_config.SEAT
    except ImportError:
        return config.SEAT


def build(machine=None, neopixel=None, cfg=config):
    """A ``SeatNode`` wired as ``cfg`` says, from the ``machine`` and ``neopixel`` modules."""
    if machine is None:
        import machine
    if neopixel is None:
        import neopixel
    Pin = machine.Pin
    spi = machine.SPI(
        cfg.SPI_ID,
        baudrate=cfg.SPI_BAUD,
        sck=Pin(cfg.SPI_SCK),
        mosi=Pin(cfg.SPI_MOSI),
        miso=Pin(cfg.SPI_MISO),
    )
    readers = []
    for cs in cfg.READER_CS:
        reader = MFRC522(spi, Pin(cs, Pin.OUT))
        reader.init()
        readers.append(reader)
    uart = machine.UART(
        cfg.UART_ID, baudrate=cfg.UART_BAUD, tx=Pin(cfg.UART_TX), rx=Pin(cfg.UART_RX), timeout=0
    )
    button = Pin(cfg.BUTTON_PIN, Pin.IN, Pin.PULL_UP)
    ring = LedRing(neopixel.NeoPixel(Pin(cfg.LED_PIN), cfg.LED_COUNT), cfg.LED_COUNT)
    return SeatNode(seat_id(), uart, readers, button, ring, player_reader=cfg.PLAYER_READER)


def run(node, steps=-1, loop_ms=config.LOOP_MS):
    """Run ``node``'s loop (forever, or ``steps`` turns)."""
    ticks_ms = time.ticks_ms  # type: ignore[attr-defined]
    sleep_ms = time.sleep_ms  # type: ignore[attr-defined]
    node.start(ticks_ms())
    while steps != 0:
        node.step(ticks_ms())
        sleep_ms(loop_ms)
        steps -= 1


if __name__ == "__main__":
    run(build())
