"""What the broker offers, found out by the one session loop (:mod:`.session`) that the
table link and the host bridge share.

MQTT 5 where the broker offers it, 3.1.1 otherwise: a bare MQTT 5 CONNECT (no properties,
no Will, a client id of its own, a clean start, so no real session is touched) is answered
by a 3.1.1-only broker with "unacceptable protocol", where a full CONNECT whose properties
it cannot parse can leave it (amqtt 0.12) waiting for bytes until the connect times out.
"""

from __future__ import annotations

import socket
from typing import Any

import aiomqtt

UNSUPPORTED_PROTOCOL = (1, 132)  # CONNACK: 3.1.1 "unacceptable protocol", 5 0x84
REFUSED_LOGIN = (4, 5, 134, 135)  # 3.1.1 bad user/password, not authorised; 5 0x86, 0x87
# Small packets go out at once: without it, Nagle's algorithm and the broker's delayed
# ACKs hold an ack or a publish back by up to 40 ms.
NO_DELAY = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)


async def offers_mqtt5(host: str, port: int, identifier: str, *, timeout: float,
                       **credentials: Any) -> bool:
    """Whether the broker at ``host:port`` takes an MQTT 5 connection; ``credentials``
    (user name, password, TLS parameters) as for ``aiomqtt.Client``. Other refusals
    (a wrong password...) raise ``aiomqtt.MqttCodeError`` as they are."""
    try:
        async with aiomqtt.Client(host, port, identifier=f"{identifier}-probe",
                                  protocol=aiomqtt.ProtocolVersion.V5, clean_start=True,
                                  timeout=timeout, socket_options=NO_DELAY, **credentials):
            return True
    except aiomqtt.MqttCodeError as exc:
        if exc.rc in UNSUPPORTED_PROTOCOL:
            return False
        raise
