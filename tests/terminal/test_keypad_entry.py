"""What the dealer keys before a command, pressed on the (fake) keypad: the entry on the
display as it grows, BACK and CLEAR, and each sequence that makes no command refused at
the key that does not fit, saying what to key instead, with the entry left to mend."""

from __future__ import annotations

import asyncio
from pathlib import Path

from controller.table.lights import Level

from .rig import keypad_table

SEATS = {1: 10_000, 2: 10_000, 3: 10_000}

# keys pressed after CLEAR -> the entry on the display, and the refusal said (or None)
CASES = [
    ("3 seat 2.5 bb", "S3 2.5 BB", None),
    ("12 back 5", "15", None),
    ("5 00 000", "500000", None),
    ("5000 + 500 +", "5000+500+", None),
    ("3 seat 500 back back back back", "3", None),  # one key back each
    ("3 seat 500 clear", "", None),
    ("5 seat 6 seat", "S5 6", "seat 5 is named already: BACK to change it"),
    ("2 bb 5", "2 BB", "BB ends the amount: press the command key, or BACK"),
    ("1.5 .", "1.5", "an amount has one decimal point"),
    ("seat", "", "key the seat number (a whole number) first"),
    ("1 2 3 4 5 6 7 8 9 0", "123456789", "at most 9 digits: BACK or CLEAR"),
    ("500 + 3 bb", "500+3", "key the amount in big blinds, then BB: 3 BB BET"),
    ("2.5 bet", "2.5", "an amount with a decimal point is in big blinds: add BB"),
    ("500 + bet", "500+", "+ is for CHIPS: key the bet's total, then BET"),
    ("3 seat 500 fold", "S3 500", "FOLD takes a seat, not an amount: CLEAR, then [seat] FOLD"),
    ("4 option", "4", None),  # sent: the desk answers (no prompt is open)
]


def test_the_entry_grows_on_the_display_and_a_bad_sequence_is_refused_at_its_key(
        tmp_path: Path) -> None:
    async def scenario() -> None:
        async with keypad_table(tmp_path, SEATS, levels=(Level(50, 100),)) as rig:
            for keys, entry, refusal in CASES:
                await rig.keys("clear")
                before = rig.desk.reply
                await rig.keys(keys)
                if keys.endswith("option"):  # a command: the entry is cleared, the desk says
                    assert rig.shown[3] == "> " and rig.said == "no prompt is open"
                    continue
                assert rig.shown[3] == f"> {entry}"[:21], keys
                if refusal is None:
                    assert rig.desk.reply is before, keys  # nothing said: still keying
                else:
                    assert rig.said == refusal, keys
                    assert rig.shown[4] and refusal.startswith(rig.shown[4])  # displayed

    asyncio.run(scenario())
