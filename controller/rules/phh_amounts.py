"""The amounts of a PHH file (:mod:`controller.rules.phh`): checked as numbers, then made
whole in the file's smallest unit (``unit_scale``), results kept exact (a
:class:`~fractions.Fraction` where a file's result is not whole). Pure."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Final

from controller.rules.errors import HandHistoryError

Number = int | Decimal
Result = int | Fraction

Fail = Callable[[str], HandHistoryError]
_INT_ONLY: Final = frozenset({int})


def numbers_at(table: Mapping[str, object], key: str,
               fail: Fail) -> tuple[list[Number] | None, bool]:
    """The array ``key`` of amounts (None: not given), and whether each is an int."""
    value = table.get(key)
    if value is None:
        return None, True
    if not isinstance(value, list):
        raise fail(f"{key} must be an array of numbers, got {value!r}")
    if not value or (set(map(type, value)) == _INT_ONLY and min(value) >= 0):
        return value, True  # whole amounts >= 0 (the usual array) need no more checks
    for v in value:
        check_number(v, key, fail)
    return value, all(type(v) is int for v in value)


def number_at(table: Mapping[str, object], key: str, fail: Fail) -> Number | None:
    value = table.get(key)
    return None if value is None else check_number(value, key, fail)


def check_number(value: object, key: str, fail: Fail) -> Number:
    if isinstance(value, bool) or not isinstance(value, int | Decimal):
        raise fail(f"{key} must hold numbers, got {value!r}")
    if isinstance(value, Decimal) and not value.is_finite():
        raise fail(f"{key} holds {value}: unknown (infinite) amounts cannot be replayed")
    if value < 0:
        raise fail(f"{key} holds {value}: amounts cannot be negative")
    return value


def decimal_places(value: Number) -> int:
    if isinstance(value, int):
        return 0
    exponent = value.normalize().as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def whole_all(values: list[Number], scale: int) -> tuple[int, ...]:
    """Amounts in the smallest unit (``scale`` makes every one whole)."""
    if scale == 1 and set(map(type, values)) <= _INT_ONLY:
        return tuple(values)  # type: ignore[arg-type]  # all int, checked just above
    return tuple(whole_one(v, scale) for v in values)  # type: ignore[misc]


def whole_one(value: Number | None, scale: int) -> int | None:
    if value is None:
        return None
    return value * scale if isinstance(value, int) else int(Fraction(value) * scale)


def exact(values: list[Number], scale: int) -> tuple[Result, ...]:
    """Results in the smallest unit, exact: whole where they are, else a Fraction."""
    out: list[Result] = []
    for v in values:
        exact = v * scale if type(v) is int else Fraction(v) * scale
        out.append(int(exact) if exact.denominator == 1 else exact)
    return tuple(out)


def amount_text(value: Result, scale: int) -> str:
    """``value`` (in the smallest unit) as PHH writes it: divided by ``scale``, exactly."""
    if scale == 1 and type(value) is int:  # nearly every amount: a whole number of units
        return str(value)
    exact = Fraction(value) / scale
    if exact.denominator == 1:
        return str(exact.numerator)
    for places in range(1, 31):
        shifted = exact * 10 ** places
        if shifted.denominator == 1:
            digits = str(abs(shifted.numerator)).rjust(places + 1, "0")
            sign = "-" if shifted < 0 else ""
            return f"{sign}{digits[:-places]}.{digits[-places:]}"
    raise HandHistoryError(f"{value} / {scale} has no exact decimal form to write in PHH")


__all__ = ["Fail", "Number", "Result", "amount_text", "check_number", "decimal_places",
           "exact", "number_at", "numbers_at", "whole_all", "whole_one"]
