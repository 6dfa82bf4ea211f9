"""The rules engine's exception tree: every rejection names the rule and the reason."""

from __future__ import annotations


class RulesError(Exception):
    """Base of every error the rules engine raises."""

    def __init__(self, reason: str, rule: str | None = None) -> None:
        self.reason = reason
        self.rule = rule
        super().__init__(f"{reason} ({rule})" if rule else reason)


class CardError(RulesError, ValueError):
    """A card or deck that cannot be: bad text, a duplicate, too few cards."""


class ConfigError(RulesError, ValueError):
    """A game configuration or rules profile that is invalid."""


class IllegalActionError(RulesError):
    """An action the rules do not allow now; the state is unchanged."""


class HandHistoryError(RulesError, ValueError):
    """A hand history (PHH) that cannot be read or replayed."""
