"""Wiring of a seat node (Raspberry Pi Pico / RP2040). Change here for another board.

The seat id comes from ``seat_config.py`` at the board's root, which
``pitboss firmware deploy PORT --seat N`` writes; ``SEAT`` is used where it is absent.
"""

SEAT = 0

# The link to the Pi: UART0 (to an RS-485 transceiver or straight to the Pi's USB-serial).
UART_ID = 0
UART_BAUD = 115200
UART_TX = 0
UART_RX = 1

# Card readers: MFRC522 boards sharing SPI0, one chip-select each.
SPI_ID = 0
SPI_BAUD = 4_000_000
SPI_SCK = 18
SPI_MOSI = 19
SPI_MISO = 16
READER_CS = (17, 20, 21)  # two hole-card readers, then the player-card reader
PLAYER_READER = 2  # index in READER_CS; link.NO_READER (255) for none

# Seat button to ground, internal pull-up.
BUTTON_PIN = 15

# LED ring: WS2812 on one pin.
LED_PIN = 22
LED_COUNT = 16

# Main loop period.
LOOP_MS = 5
