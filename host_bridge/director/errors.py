"""The director's exception tree: every refusal is a rules error naming the rule and the reason.

A refused command changes nothing: each command verifies everything before it writes.
"""

from __future__ import annotations

from controller.rules.errors import RulesError


class DirectorError(RulesError):
    """A floor or tournament command that the rules do not allow now; nothing changed."""


class SeatingError(DirectorError):
    """A seat draw, move, balance or table break that cannot be carried out."""


class PayoutError(DirectorError, ValueError):
    """A payout table, prize pool, chop or compensation that cannot be computed."""
