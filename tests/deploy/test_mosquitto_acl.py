"""The floor's Mosquitto configuration as shipped in deploy/mosquitto (issue 10: TLS,
passwords, and an ACL that lets each table write only its own topics), run for real: a CA
and a broker certificate made with openssl, a password file made with mosquitto_passwd,
and the shipped .conf and .acl with only their file paths and port changed."""

from __future__ import annotations

import os
import queue
import shutil
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from fastapi.testclient import TestClient
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.reasoncodes import ReasonCode

from host_bridge.app import create_app
from host_bridge.settings import Role
from tests.bridge.conftest import auth, make_settings
from tests.needs import missing
from tests.sync.conftest import MOSQUITTO, free_port

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy" / "mosquitto"
PASSWD = shutil.which("mosquitto_passwd")
OPENSSL = shutil.which("openssl")
SITE = "pitboss/v1/floor1"
PASSWORDS = {"T1": "felt-one", "T2": "felt-two", "bridge": "floor-host"}


def _openssl(*args: str, cwd: Path) -> None:
    assert OPENSSL is not None
    subprocess.run([OPENSSL, *args], cwd=cwd, check=True, capture_output=True)


def _certificates(folder: Path) -> None:
    """A private CA, and a broker certificate for 127.0.0.1 signed by it."""
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
             "/CN=Pitboss test CA", "-keyout", "ca.key", "-out", "ca.crt", cwd=folder)
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
             "-keyout", "broker.key", "-out", "broker.csr", cwd=folder)
    (folder / "san.ext").write_text("subjectAltName = IP:127.0.0.1\n")
    _openssl("x509", "-req", "-in", "broker.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
             "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", "broker.crt",
             cwd=folder)


@dataclass
class Broker:
    port: int
    ca: Path


@pytest.fixture
def floor_broker(tmp_path: Path) -> Iterator[Broker]:
    """Mosquitto running the shipped configuration, on a free port."""
    if MOSQUITTO is None or PASSWD is None:
        missing("mosquitto is not installed (Debian: apt-get install -y mosquitto)")
    if OPENSSL is None:
        missing("openssl is not installed (Debian: apt-get install -y openssl)")
    _certificates(tmp_path)
    passwd = tmp_path / "pitboss.passwd"
    for k, (user, password) in enumerate(PASSWORDS.items()):
        flags = ["-c"] if k == 0 else []
        subprocess.run([PASSWD, *flags, "-b", str(passwd), user, password], check=True,
                       capture_output=True)
    port = free_port()
    conf = (DEPLOY / "pitboss.conf").read_text()
    for shipped, here in {
        "/etc/mosquitto/pitboss.passwd": str(passwd),
        "/etc/mosquitto/pitboss.acl": str(DEPLOY / "pitboss.acl"),
        "/etc/mosquitto/certs/": f"{tmp_path}/",
        "/var/lib/mosquitto/": f"{tmp_path}/",
        "listener 8883": f"listener {port} 127.0.0.1",
    }.items():
        assert shipped in conf, f"the shipped configuration no longer has {shipped!r}"
        conf = conf.replace(shipped, here)
    if os.geteuid() == 0:  # CI runs as root: keep root, so the test's files stay readable
        conf += "user root\n"
    (tmp_path / "mosquitto.conf").write_text(conf)
    log = (tmp_path / "mosquitto.log").open("ab")
    proc = subprocess.Popen([MOSQUITTO, "-c", str(tmp_path / "mosquitto.conf")],
                            stdout=log, stderr=log)
    try:
        for _ in range(500):
            if proc.poll() is not None:
                raise RuntimeError((tmp_path / "mosquitto.log").read_text())
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.01)
        yield Broker(port, tmp_path / "ca.crt")
    finally:
        proc.terminate()
        proc.wait(10)


class Client:
    """A paho client over TLS with a user name, its inbox and its subscription results."""

    def __init__(self, broker: Broker, user: str, password: str) -> None:
        self.inbox: queue.Queue[tuple[str, bytes]] = queue.Queue()
        self.connected: queue.Queue[ReasonCode] = queue.Queue()
        self.granted: queue.Queue[list[ReasonCode]] = queue.Queue()
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"test-{user}-{time.time_ns()}",
                        protocol=mqtt.MQTTv5)
        c.tls_set(ca_certs=str(broker.ca), tls_version=ssl.PROTOCOL_TLS_CLIENT)
        c.username_pw_set(user, password)
        c.on_connect = lambda _c, _u, _f, rc, _p: self.connected.put(rc)
        c.on_subscribe = lambda _c, _u, _m, rcs, _p: self.granted.put(list(rcs))
        c.on_message = lambda _c, _u, m: self.inbox.put((m.topic, m.payload))
        c.connect("127.0.0.1", broker.port)
        c.loop_start()
        self.client = c
        self.result = self.connected.get(timeout=10)

    def subscribe(self, topic: str) -> ReasonCode:
        self.client.subscribe(topic, qos=1)
        return self.granted.get(timeout=10)[0]

    def publish(self, topic: str, payload: bytes) -> None:
        self.client.publish(topic, payload, qos=1).wait_for_publish(10)

    def received(self, wait: float = 1.0) -> list[tuple[str, bytes]]:
        out: list[tuple[str, bytes]] = []
        deadline = time.monotonic() + wait
        while (left := deadline - time.monotonic()) > 0:
            try:
                out.append(self.inbox.get(timeout=left))
            except queue.Empty:
                break
        return out

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def clients(floor_broker: Broker) -> Iterator[dict[str, Client]]:
    made = {user: Client(floor_broker, user, pw) for user, pw in PASSWORDS.items()}
    assert all(not c.result.is_failure for c in made.values()), {
        u: str(c.result) for u, c in made.items()}
    yield made
    for c in made.values():
        c.close()


def test_a_table_writes_its_own_topics_and_the_bridge_reads_them(
        clients: dict[str, Client]) -> None:
    bridge, t1 = clients["bridge"], clients["T1"]
    assert not bridge.subscribe(f"{SITE}/table/+/event").is_failure
    t1.publish(f"{SITE}/table/T1/event", b"t1's own event")
    assert bridge.received() == [(f"{SITE}/table/T1/event", b"t1's own event")]


def test_a_table_cannot_write_as_another_table(clients: dict[str, Client]) -> None:
    bridge, t1 = clients["bridge"], clients["T1"]
    bridge.subscribe(f"{SITE}/table/#")
    for topic in ("event", "state", "status", "secure/cards", "reply"):
        t1.publish(f"{SITE}/table/T2/{topic}", b"forged")
    t1.publish(f"{SITE}/table/T2/cmd", b"forged command")
    t1.publish(f"{SITE}/host/status", b"forged host")
    assert bridge.received() == []


def test_a_table_reads_only_its_own_commands_and_no_one_elses_cards(
        clients: dict[str, Client]) -> None:
    t1, t2, bridge = clients["T1"], clients["T2"], clients["bridge"]
    assert not t1.subscribe(f"{SITE}/table/T1/cmd").is_failure
    # Mosquitto may grant the subscriptions below; its ACL then withholds every message.
    t1.subscribe(f"{SITE}/table/T2/secure/cards")
    t1.subscribe(f"{SITE}/table/T2/cmd")
    t1.subscribe(f"{SITE}/table/#")
    bridge.publish(f"{SITE}/table/T1/cmd", b"pause")
    bridge.publish(f"{SITE}/table/T2/cmd", b"resume")
    t2.publish(f"{SITE}/table/T2/secure/cards", b"hole cards")
    # (overlapping subscriptions may deliver the one allowed message more than once)
    assert set(t1.received()) == {(f"{SITE}/table/T1/cmd", b"pause")}


def test_the_bridge_shares_the_load_with_a_shared_subscription(
        clients: dict[str, Client]) -> None:
    bridge, t2 = clients["bridge"], clients["T2"]
    assert not bridge.subscribe(f"$share/bridge/{SITE}/table/+/event").is_failure
    t2.publish(f"{SITE}/table/T2/event", b"e")
    assert bridge.received() == [(f"{SITE}/table/T2/event", b"e")]


def test_a_wrong_password_is_refused(floor_broker: Broker) -> None:
    intruder = Client(floor_broker, "T1", "guess")
    try:
        assert intruder.result.is_failure
    finally:
        intruder.close()


def test_plain_tcp_without_tls_gets_nothing(floor_broker: Broker) -> None:
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="plain", protocol=mqtt.MQTTv5)
    c.username_pw_set("T1", PASSWORDS["T1"])
    connected: queue.Queue[ReasonCode] = queue.Queue()
    c.on_connect = lambda _c, _u, _f, rc, _p: connected.put(rc)
    try:
        c.connect("127.0.0.1", floor_broker.port)
        c.loop_start()
        with pytest.raises(queue.Empty):
            connected.get(timeout=2)
    except OSError:
        pass  # the broker dropped the connection before the handshake: refused as well
    finally:
        c.loop_stop()


def _table(broker: Broker, tmp: Path, user: str, password: str) -> subprocess.Popen[str]:
    secret = tmp / f"{user}.password"
    secret.write_text(password + "\n")
    return subprocess.Popen(
        [sys.executable, "-m", "controller.table_runner", "table", "run", "--profile", "virtual",
         "--table", "T1", "--site", "floor1", "--db", str(tmp / f"{user}.db"),
         "--broker", f"127.0.0.1:{broker.port}", "--autoplay", "0", "--mqtt-user", user,
         "--mqtt-password-file", str(secret), "--mqtt-ca", str(broker.ca)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def test_a_table_controller_logs_in_over_tls_and_its_events_reach_the_bridge(
        floor_broker: Broker, tmp_path: Path) -> None:
    bridge = Client(floor_broker, "bridge", PASSWORDS["bridge"])
    bridge.subscribe(f"{SITE}/table/T1/event")
    table = _table(floor_broker, tmp_path, "T1", PASSWORDS["T1"])
    try:
        got = bridge.received(wait=15)
        assert got and all(topic == f"{SITE}/table/T1/event" for topic, _ in got)
    finally:
        table.terminate()
        table.wait(10)
        bridge.close()


def test_a_table_with_a_wrong_password_says_what_to_check(
        floor_broker: Broker, tmp_path: Path) -> None:
    table = _table(floor_broker, tmp_path, "T1", "not-the-password")
    try:
        time.sleep(3)
    finally:
        table.terminate()
        _, err = table.communicate(timeout=10)
    assert "check the table's MQTT user name and password" in err


def test_the_bridge_logs_in_over_tls_stores_a_tables_hands_and_acks_them(
        floor_broker: Broker, tmp_path: Path) -> None:
    settings = make_settings(tmp_path, site="floor1", mqtt_port=floor_broker.port,
                             mqtt_username="bridge", mqtt_password=PASSWORDS["bridge"],
                             mqtt_tls_ca=floor_broker.ca)
    with TestClient(create_app(settings, connect=True)) as client:
        secret = tmp_path / "T1.password"
        secret.write_text(PASSWORDS["T1"])
        table = subprocess.run(
            [sys.executable, "-m", "controller.table_runner", "table", "run",
             "--profile", "virtual", "--table", "T1", "--site", "floor1",
             "--db", str(tmp_path / "t1.db"),
             "--broker", f"127.0.0.1:{floor_broker.port}", "--autoplay", "3", "--drain",
             "--mqtt-user", "T1", "--mqtt-password-file", str(secret),
             "--mqtt-ca", str(floor_broker.ca)],
            cwd=ROOT, capture_output=True, text=True, timeout=120)
        # --drain ends only once the bridge has acknowledged every event (host/ack/T1)
        assert table.returncode == 0 and "DRAINED" in table.stdout, table.stderr[-2000:]
        hands = client.get("/api/v1/tables/T1/hands", headers=auth(Role.VIEWER)).json()
        assert hands["count"] == 3
