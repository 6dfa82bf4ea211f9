"""The link protocol as a state machine: a seat node and the controller over a bad line.

The line may lose, duplicate, corrupt and replay frames, time jumps, and the node may
reboot. Whatever happens: the controller gets the node's data frames in order and at most
once per boot, every one of them once the line heals, replays are rejected and counted,
and the controller's view of the node being alive follows the frames it really received.
"""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from firmware import link as L

RTO_MS = 50
RTO_MAX_MS = 400
HEARTBEAT_MS = 100
OFFLINE_AFTER_MS = 3 * HEARTBEAT_MS


def split(data: bytes) -> list[bytes]:
    return [p + b"\x00" for p in data.split(b"\x00")[:-1]]


class LinkMachine(RuleBasedStateMachine):
    @initialize(boot=st.integers(0, 2**32 - 1))
    def start(self, boot: int) -> None:
        self.now = 1_000
        self.ctrl = L.LinkEndpoint(
            L.CONTROLLER_ACCEPTS, RTO_MS, RTO_MAX_MS, HEARTBEAT_MS, queue_max=64
        )
        self.ctrl.send(L.T_HELLO, L.hello_body(0xC0FFEE, L.CONTROLLER_SEAT, (0, 1, 0)))
        self.ctrl_sent: list[bytes] = [self.ctrl._queue[0][1]]
        self.to_ctrl: list[bytes] = []  # frames on the line, node -> controller
        self.to_node: list[bytes] = []
        self.accepted_by_ctrl: list[bytes] = []  # wire frames of this node boot it delivered
        self.heard_at: int | None = None  # when the controller last got a good frame
        self.boots = 0
        self.boot_node(boot)

    def boot_node(self, boot: int) -> None:
        self.node = L.LinkEndpoint(L.NODE_ACCEPTS, RTO_MS, RTO_MAX_MS, HEARTBEAT_MS, queue_max=64)
        self.boots += 1
        # boot ids are random on a real node; here they are also kept distinct
        hello = L.hello_body((boot & 0xFFFF0000) | self.boots, 3, (1, 0, 0), 2, 1)
        self.node.send(L.T_HELLO, hello)
        self.node_sent = [hello]  # data bodies this boot queued, in order
        self.ctrl_got: list[bytes] = []  # ... and what the controller delivered of them
        self.node_got: list[bytes] = []  # what this boot of the node delivered
        self.to_ctrl.clear()
        self.to_node.clear()
        self.accepted_by_ctrl.clear()

    # --- the two ends ---------------------------------------------------------------------
    @rule(reader=st.integers(0, 2), uid=st.binary(min_size=4, max_size=4), left=st.booleans())
    def node_sees_a_card(self, reader: int, uid: bytes, left: bool) -> None:
        body = L.card_body(reader, uid)
        self.node.send(L.T_CARD_LEFT if left else L.T_CARD_ARRIVED, body)
        self.node_sent.append(body)

    @rule()
    def node_button(self) -> None:
        self.node.send(L.T_BUTTON, b"\x00")
        self.node_sent.append(b"\x00")

    @rule(mode=st.sampled_from(L.LED_MODES), ms=st.integers(0, 60_000))
    def controller_lights_the_ring(self, mode: int, ms: int) -> None:
        body = L.led_body(mode, (1, 2, 3), ms, 60_000)
        self.ctrl.send(L.T_LED, body)
        self.ctrl_sent.append(body)

    @rule(ms=st.sampled_from([1, 10, RTO_MS, HEARTBEAT_MS, RTO_MAX_MS, 2 * OFFLINE_AFTER_MS]))
    def time_passes(self, ms: int) -> None:
        self.now += ms

    @rule()
    def both_ends_poll(self) -> None:
        self.node.poll(self.now)
        self.ctrl.poll(self.now)
        self.to_ctrl += split(self.node.output())
        self.to_node += split(self.ctrl.output())

    @rule(boot=st.integers(0, 2**32 - 1))
    def node_reboots(self, boot: int) -> None:
        self.boot_node(boot)

    # --- the line -------------------------------------------------------------------------
    def to_controller(self, frame: bytes) -> list[L.LinkFrame]:
        before = self.ctrl.stats.frames_ok
        got = self.ctrl.feed(frame, self.now)
        if self.ctrl.stats.frames_ok > before:
            self.heard_at = self.now
        for f in got:
            self.ctrl_got.append(f.body)
            self.accepted_by_ctrl.append(frame)
        self.to_node += split(self.ctrl.output())
        return got

    def to_the_node(self, frame: bytes) -> None:
        self.node_got += [f.body for f in self.node.feed(frame, self.now)]
        self.to_ctrl += split(self.node.output())

    @precondition(lambda self: self.to_ctrl)
    @rule()
    def line_delivers_to_controller(self) -> None:
        self.to_controller(self.to_ctrl.pop(0))

    @precondition(lambda self: self.to_node)
    @rule()
    def line_delivers_to_node(self) -> None:
        self.to_the_node(self.to_node.pop(0))

    @precondition(lambda self: self.to_ctrl)
    @rule()
    def line_loses_a_frame_to_controller(self) -> None:
        self.to_ctrl.pop(0)

    @precondition(lambda self: self.to_node)
    @rule()
    def line_loses_a_frame_to_node(self) -> None:
        self.to_node.pop(0)

    @precondition(lambda self: self.to_ctrl)
    @rule()
    def line_duplicates_a_frame_to_controller(self) -> None:
        self.to_ctrl.insert(0, self.to_ctrl[0])

    @precondition(lambda self: self.to_ctrl)
    @rule(data=st.data())
    def line_corrupts_a_frame_to_controller(self, data: st.DataObject) -> None:
        frame = bytearray(self.to_ctrl.pop(0))
        pos = data.draw(st.integers(0, len(frame) - 2))
        frame[pos] ^= 1 << data.draw(st.integers(0, 7))
        rejected = self.ctrl.stats.rejected()
        delivered = self.ctrl.stats.delivered
        self.ctrl.feed(bytes(frame) + b"\x00", self.now)
        assert self.ctrl.stats.delivered == delivered
        assert self.ctrl.stats.rejected() > rejected

    @precondition(lambda self: self.accepted_by_ctrl)
    @rule(data=st.data())
    def someone_replays_an_accepted_frame(self, data: st.DataObject) -> None:
        frame = data.draw(st.sampled_from(self.accepted_by_ctrl))
        seen = self.ctrl.stats.rejected_replay + self.ctrl.stats.duplicates
        assert self.to_controller(frame) == []
        assert self.ctrl.stats.rejected_replay + self.ctrl.stats.duplicates == seen + 1

    @rule()
    def line_heals_and_everything_arrives(self) -> None:
        for _ in range(200):
            self.now += RTO_MAX_MS
            self.both_ends_poll()
            while self.to_ctrl or self.to_node:
                if self.to_ctrl:
                    self.to_controller(self.to_ctrl.pop(0))
                if self.to_node:
                    self.to_the_node(self.to_node.pop(0))
            if not self.node.pending() and not self.ctrl.pending():
                break
        assert self.ctrl_got == self.node_sent
        assert self.node.pending() == 0

    # --- what must always hold ------------------------------------------------------------
    @invariant()
    def controller_gets_node_frames_in_order_at_most_once(self) -> None:
        assert self.ctrl_got == self.node_sent[: len(self.ctrl_got)]

    @invariant()
    def node_gets_controller_frames_in_order_at_most_once(self) -> None:
        # the controller keeps its queue across node reboots, so what one boot of the node
        # got is a subsequence of what the controller queued, in order, without repeats
        it = iter(self.ctrl_sent)
        assert all(any(body is s or body == s for s in it) for body in self.node_got)

    @invariant()
    def controller_sees_the_node_alive_exactly_while_it_hears_it(self) -> None:
        expect = self.heard_at is not None and self.now - self.heard_at < OFFLINE_AFTER_MS
        assert self.ctrl.peer_alive(self.now, OFFLINE_AFTER_MS) == expect

    @precondition(lambda self: self.node.pending())
    @rule()
    def an_unacked_frame_goes_out_again_within_the_longest_backoff(self) -> None:
        self.now += RTO_MAX_MS
        self.node.poll(self.now)
        out = split(self.node.output())
        assert self.node._inflight in out
        self.to_ctrl += out


LinkMachine.TestCase.settings = settings(max_examples=150, stateful_step_count=40, deadline=None)
TestLinkProtocol = LinkMachine.TestCase


def test_retransmits_back_off_until_acked() -> None:
    node = L.LinkEndpoint(L.NODE_ACCEPTS, rto_ms=100, rto_max_ms=400, heartbeat_ms=10**9)
    node.send(L.T_BUTTON, b"\x00")
    sent_at = []
    for now in range(0, 2000, 10):
        node.poll(now)
        if node.output():
            sent_at.append(now)
    assert sent_at[:5] == [0, 100, 300, 700, 1100]  # 100, 200, 400, then capped at 400
    assert node.stats.retransmits == len(sent_at) - 1
    node.feed(L.encode_frame(L.T_ACK, 0), 2000)
    assert node.pending() == 0
    node.poll(5000)
    assert node.output() == b""


def test_the_next_frame_goes_out_as_soon_as_the_previous_is_acked() -> None:
    node = L.LinkEndpoint(L.NODE_ACCEPTS, heartbeat_ms=10**9)
    node.send(L.T_BUTTON, b"\x00")
    node.send(L.T_BUTTON, b"\x01")
    node.poll(0)
    assert L.FrameDecoder().feed(node.output())[-1].seq == 0
    node.feed(L.encode_frame(L.T_ACK, 0), 1)
    out = L.FrameDecoder().feed(node.output())
    assert [(f.seq, f.body) for f in out] == [(1, b"\x01")]


def test_a_full_queue_drops_the_oldest_unsent_frame_never_the_one_in_flight() -> None:
    node = L.LinkEndpoint(L.NODE_ACCEPTS, heartbeat_ms=10**9, queue_max=3)
    for i in range(3):
        node.send(L.T_BUTTON, bytes((i,)))
    node.poll(0)  # frame 0 in flight
    node.send(L.T_BUTTON, b"\x03")
    assert node.stats.dropped_queue_full == 1
    assert [body for _, body in node._queue] == [b"\x00", b"\x02", b"\x03"]


def test_a_rebooted_peer_is_rebaselined_by_its_hello_and_old_seqs_are_replays() -> None:
    ctrl = L.LinkEndpoint(L.CONTROLLER_ACCEPTS)
    old = L.encode_frame(L.T_BUTTON, 40, b"\x00")
    assert len(ctrl.feed(old, 0)) == 1
    hello = L.encode_frame(L.T_HELLO, 0, L.hello_body(77, 1, (1, 0, 0)))
    assert len(ctrl.feed(hello, 1)) == 1  # seq 0 is "behind" 40, but a new boot id
    assert len(ctrl.feed(L.encode_frame(L.T_BUTTON, 1, b"\x00"), 2)) == 1
    assert ctrl.feed(hello, 3) == []  # the same hello again is a replay now
    assert ctrl.stats.rejected_replay == 1
