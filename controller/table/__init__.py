"""The live table: seats, the deck, card reads -> hand actions, misdeals, undo, displays.

- ``table.Table``: one table on its hardware; device events in (``handle``/``pump``),
  dealer and floor input as intents (``intents``, down ``Table.submit``), the events of
  the one vocabulary (``controller.events`` models) out to the injected sink, then lights
  and the blinds display.
- ``hand_in_play``: the one owner of the hand. ``seats``, ``deck``, ``dealing``,
  ``reads``, ``betting``, ``showdown``, ``lights``, ``seating`` (seat and deck inputs),
  ``timing`` (the clocks on the table), ``clock_panel`` (clock events on the displays,
  buzzer and lights), ``colour_up``, ``hand_for_hand``, ``ports`` (what each part is
  given), ``base`` (stages, prompts and their choices): one concern each.
- ``virtual.VirtualTable``: the virtual profile with bots and a simulated dealer.
"""
