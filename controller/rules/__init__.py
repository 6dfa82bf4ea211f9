"""The poker rules engine: pure, synchronous, typed, stdlib only (DESIGN.md, rules room)."""
