"""The clocks' exception tree; each error is a rules error, so it carries the rule it cites."""

from __future__ import annotations

from controller.rules.errors import ConfigError, RulesError


class ClockError(RulesError):
    """A clock command that cannot be carried out now; the clock is unchanged."""


class StructureError(ConfigError):
    """A blind structure (a preset or a house file) that is invalid."""
