"""The live table: seats, the deck, card reads -> hand actions, misdeals, undo, displays.

- ``table.Table``: one table on its hardware; device events in (``handle``/``pump``),
  dealer and floor input as methods, typed events out to the injected sink, then lights
  and the blinds display.
- ``events``: every event the table emits (frozen dataclasses; ``is_secret`` marks those
  for the secure topic only).
- ``seats``, ``deck``, ``dealing``, ``reads``, ``betting``, ``showdown``, ``lights``,
  ``seating`` (seat and deck inputs), ``timing`` (the clocks on the table), ``clock_panel``
  (clock events on the displays, buzzer and lights), ``base`` (stages, prompts): one
  concern each.
- ``virtual.VirtualTable``: the virtual profile with bots and a simulated dealer.
"""
