"""What the bridge's MQTT client (:mod:`host_bridge.mqtt_fast`) relies on of paho-mqtt's and
aiomqtt's internals, checked when that module is imported (:func:`check_internals`): a
release without them stops the bridge at start-up with :class:`IncompatibleMqttLibrary`,
never a silent misbehaviour. Split from ``mqtt_fast`` so each stays a module a person can
hold in mind."""

from __future__ import annotations

import collections

import aiomqtt
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

__all__ = ["AIOMQTT_ATTRIBUTES", "IncompatibleMqttLibrary", "check_internals", "missing",
           "received_attribute"]

PUBLISH = 0x30


class IncompatibleMqttLibrary(RuntimeError):
    """The installed paho-mqtt or aiomqtt lacks what the bridge's receive path relies on."""


# What the fast path uses of paho's client (paho-mqtt 2.1 and 2.2 have all of it).
_PAHO_METHODS = ("loop_read", "loop_write", "want_write", "_sock_recv", "_sock_send",
                 "_packet_handle", "_packet_write", "_packet_queue", "_loop_rc_handle",
                 "_easy_log", "_handle_on_message", "_call_socket_register_write",
                 "_call_socket_unregister_write", "_update_inflight")
_PAHO_ATTRIBUTES = ("_sock", "_in_packet", "_out_packet", "_msgtime_mutex", "_protocol",
                    "_manual_ack", "_userdata", "_out_messages", "_out_message_mutex",
                    "_inflight_messages", "_max_inflight_messages", "_registered_write",
                    "_callback_mutex", "_in_callback_mutex", "_on_publish",
                    "_callback_api_version", "suppress_exceptions", "_last_msg_out")
_IN_PACKET_KEYS = {"command", "have_remaining", "remaining_count", "remaining_mult",
                   "remaining_length", "packet", "to_process", "pos"}
_OUT_PACKET_KEYS = {"command", "mid", "qos", "pos", "to_process", "packet", "info"}
# What it uses of aiomqtt's client: methods (checked at import) and attributes (when a
# FastClient is made).
_AIOMQTT_METHODS = ("_misc_loop", "_on_socket_open", "_on_socket_close",
                    "_on_socket_register_write", "_on_socket_unregister_write", "_on_publish")
AIOMQTT_ATTRIBUTES = ("_client", "_loop", "_disconnected", "_queue", "_logger", "_misc_task",
                       "_pending_publishes", "_pending_subscribes", "_pending_unsubscribes",
                       "_outgoing_calls_sem", "pending_calls_threshold", "timeout")


def missing(what: str) -> IncompatibleMqttLibrary:
    return IncompatibleMqttLibrary(
        f"the bridge's MQTT receive path (host_bridge.mqtt_fast) needs {what}, which the "
        f"installed aiomqtt / paho-mqtt lack; install the versions pyproject.toml pins "
        f"(aiomqtt>=2.5,<3, paho-mqtt>=2.1,<3)")


def received_attribute(client: mqtt.Client) -> str:
    # when bytes last came in, for paho's keep-alive: renamed between paho 2.1 and 2.2
    for name in ("_last_bytes_received", "_last_msg_in"):
        if hasattr(client, name):
            return name
    raise missing("paho's Client._last_bytes_received (or _last_msg_in)")


def check_internals() -> None:
    """Raise :class:`IncompatibleMqttLibrary` unless paho's and aiomqtt's internals that
    :class:`~host_bridge.mqtt_fast.FastClient` patches are all there, as in the pinned releases."""
    for name in _PAHO_METHODS:
        if not callable(getattr(mqtt.Client, name, None)):
            raise missing(f"paho's Client.{name}()")
    for name in _AIOMQTT_METHODS:
        if not callable(getattr(aiomqtt.Client, name, None)):
            raise missing(f"aiomqtt's Client.{name}()")
    probe = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    for name in _PAHO_ATTRIBUTES:
        if not hasattr(probe, name):
            raise missing(f"paho's Client.{name}")
    if not isinstance(probe._in_packet, dict) or set(probe._in_packet) != _IN_PACKET_KEYS:
        raise missing(f"paho's Client._in_packet with the keys {sorted(_IN_PACKET_KEYS)}")
    if not isinstance(probe._out_packet, collections.deque):
        raise missing("paho's Client._out_packet as a deque")
    if not isinstance(probe._out_messages, dict):
        raise missing("paho's Client._out_messages as a dict")
    received_attribute(probe)
    # a queued packet (no socket: paho only queues it) and a message's info, as written here
    probe._packet_queue(PUBLISH, b"\x30\x00", 0, 0, mqtt.MQTTMessageInfo(0))
    if len(probe._out_packet) != 1 or set(probe._out_packet[0]) != _OUT_PACKET_KEYS:
        raise missing(f"paho's Client._out_packet entries with the keys "
                       f"{sorted(_OUT_PACKET_KEYS)}")
    for name in ("_set_as_published", "is_published"):
        if not callable(getattr(probe._out_packet[0]["info"], name, None)):
            raise missing(f"paho's MQTTMessageInfo.{name}()")
    probe._out_packet.clear()
    probe._reset_sockets()
