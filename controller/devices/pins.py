"""The Raspberry Pi 40-pin header: which BCM GPIOs each bus takes, and header pin numbers."""

from __future__ import annotations

GPIO_RANGE = range(2, 28)  # BCM 0 and 1 are the HAT ID EEPROM's: never for devices

# BCM GPIO -> physical header pin
HEADER_PIN: dict[int, int] = {
    2: 3,
    3: 5,
    4: 7,
    17: 11,
    27: 13,
    22: 15,
    10: 19,
    9: 21,
    11: 23,
    0: 27,
    5: 29,
    6: 31,
    13: 33,
    19: 35,
    26: 37,
    14: 8,
    15: 10,
    18: 12,
    23: 16,
    24: 18,
    25: 22,
    8: 24,
    7: 26,
    1: 28,
    12: 32,
    16: 36,
    20: 38,
    21: 40,
}

# bus name -> (data pins, chip-select pins by index); I2C buses have no chip selects
SPI_BUSES: dict[str, tuple[dict[str, int], tuple[int, ...]]] = {
    "spi0": ({"MISO": 9, "MOSI": 10, "SCLK": 11}, (8, 7)),
    "spi1": ({"MISO": 19, "MOSI": 20, "SCLK": 21}, (18, 17, 16)),
}
I2C_BUSES: dict[str, dict[str, int]] = {
    "i2c1": {"SDA": 2, "SCL": 3},
    "i2c3": {"SDA": 4, "SCL": 5},
    "i2c4": {"SDA": 6, "SCL": 7},
    "i2c5": {"SDA": 12, "SCL": 13},
    "i2c6": {"SDA": 22, "SCL": 23},
}
# serial ports on the header (a seat node wired to the UART); USB ports take no GPIO
UART_PORTS: dict[str, dict[str, int]] = {
    "/dev/serial0": {"TXD": 14, "RXD": 15},
    "/dev/ttyAMA0": {"TXD": 14, "RXD": 15},
}


def spi_device(bus: str) -> int:
    """The spidev bus number of ``spi0``/``spi1``."""
    return int(bus.removeprefix("spi"))


def i2c_device(bus: str) -> int:
    """The /dev/i2c-N number of ``i2c1``..``i2c6``."""
    return int(bus.removeprefix("i2c"))


def free_gpios(used: set[int]) -> list[int]:
    """Header GPIOs no one uses yet, lowest first."""
    return [p for p in GPIO_RANGE if p not in used]
