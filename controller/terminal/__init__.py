"""The dealer's terminal: the USB keypad and the tablet page, both turning the dealer's
input into the table's intents through one :class:`~controller.terminal.desk.Desk`, and
both showing its :class:`~controller.terminal.screen.Screen` (DESIGN.md rooms)."""
