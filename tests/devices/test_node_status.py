"""The Pi side marks a seat node offline after missed heartbeats and shows it: the table
hears an event and the buzzer sounds; a node that says hello again is back online."""

from __future__ import annotations

from controller.devices.events import SeatNodeOffline, SeatNodeOnline
from controller.devices.interfaces import BEEP_ERROR
from controller.devices.mock import MockTable
from controller.devices.profile import load_profile


def test_a_seat_node_going_offline_is_an_event_and_a_warning_beep() -> None:
    table = MockTable(load_profile("tournament-10"))
    try:
        table.drive_node_status(3, online=False)
        table.drive_node_status(3, online=False)  # still offline: said once
        assert table.poll() == [SeatNodeOffline(3)]
        assert table.offline_seats == {3}
        table.assert_beeped(BEEP_ERROR)
        table.drive_node_status(3, online=True)
        table.drive_node_status(7, online=True)  # never offline: nothing to say
        assert table.poll() == [SeatNodeOnline(3)]
        assert table.offline_seats == set()
    finally:
        table.close()
