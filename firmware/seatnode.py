"""The seat node: reads its card readers and seat button, drives its LED ring, and speaks
the link to the Pi.

All hardware is given to ``SeatNode`` (``main.py`` builds it from ``machine``), so the same
logic runs on the board, on MicroPython under node for the tests, and on CPython.

What the node does with the link:
- on start it sends a HELLO (seat id, firmware version, boot id, readers);
- a debounced card arrival or departure is a CARD_ARRIVED / CARD_LEFT frame, a button
  press a BUTTON frame, all delivered reliably and in order;
- an LED frame from the Pi sets the ring's mode;
- a HELLO from the Pi means the controller (re)started and lost its view of the seat:
  the node drops what it had not yet delivered and announces itself again, with a
  CARD_ARRIVED for each card lying on its readers;
- while the Pi is silent for ``pi_timeout_ms`` the ring shows "link lost".
"""

from firmware.debounce import CARD_ARRIVED, ButtonDebounce, CardPresence
from firmware.link import (
    NO_READER,
    NODE_ACCEPTS,
    T_BUTTON,
    T_CARD_ARRIVED,
    T_CARD_LEFT,
    T_HELLO,
    T_LED,
    LinkEndpoint,
    card_body,
    hello_body,
    new_boot_id,
    parse_hello,
    parse_led,
)

FIRMWARE_VERSION = (0, 1, 0)


class SeatNode:
    """One seat's node. Call ``start(now)`` once, then ``step(now)`` in a loop."""

    def __init__(
        self,
        seat,
        uart,
        readers,
        button,
        ring,
        player_reader=NO_READER,
        boot_id=None,
        stable_ms=60,
        leave_ms=300,
        button_ms=20,
        pi_timeout_ms=3000,
        link=None,
    ):
        self.seat = seat
        self.uart = uart
        self.readers = readers
        self.button = button
        self.ring = ring
        self.player_reader = player_reader
        self.boot_id = new_boot_id() if boot_id is None else boot_id
        self.link = link if link is not None else LinkEndpoint(NODE_ACCEPTS)
        self.presence = [CardPresence(stable_ms, leave_ms) for _ in readers]
        self.button_state = ButtonDebounce(button_ms)
        self.pi_timeout_ms = pi_timeout_ms
        self.pi_boot = None
        self.reader_errors = 0
        self._next_reader = 0

    def _hello(self):
        self.link.send(
            T_HELLO,
            hello_body(
                self.boot_id,
                self.seat,
                FIRMWARE_VERSION,
                len(self.readers),
                self.player_reader,
            ),
        )

    def start(self, now):
        self._hello()
        self._flush(now)

    def step(self, now):
        """One turn of the main loop: link in, one reader, the button, link out, LEDs."""
        data = self.uart.read()
        if data:
            for frame in self.link.feed(data, now):
                self._on_frame(frame, now)
        self._poll_reader(now)
        if self.button_state.update(self.button.value(), now):
            self.link.send(T_BUTTON, b"\x00")
        self._flush(now)
        self.ring.link_lost = not self.link.peer_alive(now, self.pi_timeout_ms)
        self.ring.show(now)

    def _flush(self, now):
        self.link.poll(now)
        out = self.link.output()
        if out:
            self.uart.write(out)

    def _on_frame(self, frame, now):
        if frame.ftype == T_LED:
            mode, rgb, remaining, total = parse_led(frame.body)
            self.ring.set(mode, rgb, remaining, total, now)
        elif frame.ftype == T_HELLO:
            self.pi_boot = parse_hello(frame.body)[1]
            self.link.clear_pending()
            self._hello()
            for i in range(len(self.presence)):
                uid = self.presence[i].present
                if uid is not None:
                    self.link.send(T_CARD_ARRIVED, card_body(i, uid))

    def _poll_reader(self, now):
        n = len(self.readers)
        if n == 0:
            return
        i = self._next_reader
        self._next_reader = (i + 1) % n
        try:
            uid = self.readers[i].read_uid()
        except Exception:  # a glitch on the SPI bus must not stop the seat
            self.reader_errors += 1
            uid = None
        event = self.presence[i].update(uid, now)
        if event is not None:
            kind, card = event
            ftype = T_CARD_ARRIVED if kind == CARD_ARRIVED else T_CARD_LEFT
            self.link.send(ftype, card_body(i, card))
