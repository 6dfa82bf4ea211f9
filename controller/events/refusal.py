"""A refusal: an input the table did not accept, with the rule and the reason; nothing
changed. It is journaled and sent like any event, so the floor's dispute timeline holds
every refusal beside what was accepted."""

from __future__ import annotations

from typing import Literal

from .base import Frozen, RuleId, Text, Word


class Rejected(Frozen):
    """The table refused an input: ``reason`` in words, ``rule`` the rule id that refused
    it (None: no rule, e.g. a key that does nothing now), ``source`` where the input came
    from (``console``, ``chips``, ``muck``, ``deal``, ``seats``, a clock...)."""

    kind: Literal["rejected"] = "rejected"
    reason: Text
    rule: RuleId | None = None
    source: Word = ""
