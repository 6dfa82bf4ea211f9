"""The floor's Mosquitto configuration as shipped in deploy/mosquitto (issue 10: TLS,
passwords, and an ACL that lets each table write only its own topics), run for real: a CA
and a broker certificate made with openssl, a password file made with mosquitto_passwd,
and the shipped .conf with only its file paths and port changed; the ACL is the shipped
template written by ``pitboss bridge acl`` (host_bridge.broker_acl) for site floor1 and two
bridge logins, plus a test-only "auditor" that reads every pitboss topic to watch for
forgeries. Issue 17: the broker binds each client id to its login (no takeover of another
client's connection or session) and the ACL names the site."""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import aiomqtt
import paho.mqtt.client as mqtt
import pytest
from fastapi.testclient import TestClient
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from controller.sync.session import BrokerSession, Presence, SessionSettings
from host_bridge.app import create_app
from host_bridge.broker_acl import AclError, render_acl
from host_bridge.cli import main as bridge_cli
from host_bridge.settings import Role
from tests.bridge.conftest import auth, make_settings
from tests.needs import missing
from tests.sync.conftest import MOSQUITTO, free_port

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy" / "mosquitto"
PASSWD = shutil.which("mosquitto_passwd")
OPENSSL = shutil.which("openssl")
SITE = "pitboss/v1/floor1"
PASSWORDS = {"T1": "felt-one", "T2": "felt-two", "bridge1": "floor-host",
             "bridge2": "floor-host-2", "auditor": "reads-all"}
BRIDGES = ("bridge1", "bridge2")
AUDITOR = ("\n# test only: sees every pitboss message, forged or not\n"
           "user auditor\ntopic read pitboss/#\n")


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
    acl = tmp_path / "pitboss.acl"
    acl.write_text(render_acl((DEPLOY / "pitboss.acl").read_text(), "floor1", BRIDGES) + AUDITOR)
    conf = (DEPLOY / "pitboss.conf").read_text()
    for shipped, here in {
        "/etc/mosquitto/pitboss.passwd": str(passwd),
        "/etc/mosquitto/pitboss.acl": str(acl),
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

    def __init__(self, broker: Broker, user: str, password: str, *,
                 client_id: str | None = None, persistent: bool = False) -> None:
        self.inbox: queue.Queue[tuple[str, bytes]] = queue.Queue()
        self.connected: queue.Queue[ReasonCode] = queue.Queue()
        self.granted: queue.Queue[list[ReasonCode]] = queue.Queue()
        self.disconnects: queue.Queue[ReasonCode] = queue.Queue()  # the broker's reasons
        self.session_present: list[bool] = []  # CONNACK's flag, per connection
        c = mqtt.Client(CallbackAPIVersion.VERSION2,
                        client_id=client_id or f"test-{user}-{time.time_ns()}",
                        protocol=mqtt.MQTTv5)
        c.tls_set(ca_certs=str(broker.ca), tls_version=ssl.PROTOCOL_TLS_CLIENT)
        c.username_pw_set(user, password)

        def on_connect(_c: object, _u: object, flags: mqtt.ConnectFlags, rc: ReasonCode,
                       _p: object) -> None:
            self.session_present.append(flags.session_present)
            self.connected.put(rc)

        c.on_connect = on_connect
        c.on_disconnect = lambda _c, _u, _f, rc, _p: self.disconnects.put(rc)
        c.on_subscribe = lambda _c, _u, _m, rcs, _p: self.granted.put(list(rcs))
        c.on_message = lambda _c, _u, m: self.inbox.put((m.topic, m.payload))
        props = None
        if persistent:  # as a table's session: kept by the broker while it is away
            props = Properties(PacketTypes.CONNECT)
            props.SessionExpiryInterval = 3600
        c.connect("127.0.0.1", broker.port, clean_start=not persistent, properties=props)
        c.loop_start()
        self.client = c
        self.result = self.connected.get(timeout=10)

    def dropped(self, wait: float = 1.0) -> ReasonCode | None:
        """The reason the broker gave for dropping this client, if it did within ``wait``."""
        try:
            return self.disconnects.get(timeout=wait)
        except queue.Empty:
            return None

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
    bridge, t1 = clients["bridge1"], clients["T1"]
    assert not bridge.subscribe(f"{SITE}/table/+/event").is_failure
    t1.publish(f"{SITE}/table/T1/event", b"t1's own event")
    assert bridge.received() == [(f"{SITE}/table/T1/event", b"t1's own event")]


def test_a_table_cannot_write_as_another_table(clients: dict[str, Client]) -> None:
    bridge, t1 = clients["bridge1"], clients["T1"]
    bridge.subscribe(f"{SITE}/table/#")
    for topic in ("event", "state", "status", "secure/cards", "reply"):
        t1.publish(f"{SITE}/table/T2/{topic}", b"forged")
    t1.publish(f"{SITE}/table/T2/cmd", b"forged command")
    t1.publish(f"{SITE}/host/status", b"forged host")
    assert bridge.received() == []


def test_a_table_reads_only_its_own_commands_and_no_one_elses_cards(
        clients: dict[str, Client]) -> None:
    t1, t2, bridge = clients["T1"], clients["T2"], clients["bridge1"]
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
    bridge, t2 = clients["bridge1"], clients["T2"]
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
    bridge = Client(floor_broker, "bridge1", PASSWORDS["bridge1"])
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
    lines: queue.Queue[str] = queue.Queue()
    assert table.stderr is not None
    threading.Thread(target=lambda: [lines.put(line) for line in table.stderr or ()],
                     daemon=True).start()
    err = ""
    deadline = time.monotonic() + 20  # the hint comes at the first refusal (2-3 s here)
    try:
        while "check the table's" not in err and (left := deadline - time.monotonic()) > 0:
            with contextlib.suppress(queue.Empty):
                err += lines.get(timeout=left)
    finally:
        table.terminate()
        table.wait(10)
    assert "check the table's MQTT user name and password" in err


def test_the_bridge_logs_in_over_tls_stores_a_tables_hands_and_acks_them(
        floor_broker: Broker, tmp_path: Path) -> None:
    settings = make_settings(tmp_path, site="floor1", mqtt_port=floor_broker.port,
                             mqtt_username="bridge1", mqtt_password=PASSWORDS["bridge1"],
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


# --------------------------------------------------------------- issue 17: ids bound to logins
def _victim_and_thief(broker: Broker, victim: str, client_id: str) -> tuple[Client, Client]:
    """``victim`` connected as ``client_id`` with a persistent session, subscribed to the
    commands it reads; then T1 logs in with that same client id, asking to resume its
    session."""
    v = Client(broker, victim, PASSWORDS[victim], client_id=client_id, persistent=True)
    assert not v.result.is_failure
    table = victim if victim.startswith("T") else "+"
    assert not v.subscribe(f"{SITE}/table/{table}/cmd").is_failure
    thief = Client(broker, "T1", PASSWORDS["T1"], client_id=client_id, persistent=True)
    return v, thief


# the id the table's link sends, and the id the broker now gives it (its login)
@pytest.mark.parametrize("client_id", ["pitboss-floor1-T2", "T2"])
def test_a_table_cannot_take_over_another_tables_client_id_or_session(
        floor_broker: Broker, client_id: str) -> None:
    t2, thief = _victim_and_thief(floor_broker, "T2", client_id)
    bridge = Client(floor_broker, "bridge1", PASSWORDS["bridge1"])
    try:
        assert not thief.result.is_failure  # T1 gets in, as T1
        assert thief.session_present == [False], "T1 was handed T2's saved session"
        assert t2.dropped() is None, "T2 was disconnected by a login with its client id"
        bridge.publish(f"{SITE}/table/T2/cmd", b"pause")
        assert t2.received() == [(f"{SITE}/table/T2/cmd", b"pause")]
        assert thief.received(wait=0.2) == []
    finally:
        for c in (thief, t2, bridge):
            c.close()


# the id host_bridge.mqtt sends for bridge_id "bridge-1", and the one the broker gives it
@pytest.mark.parametrize("client_id", ["pitboss-bridge-1", "bridge1"])
def test_a_table_cannot_take_over_the_bridges_client_id_or_session(
        floor_broker: Broker, client_id: str) -> None:
    bridge, thief = _victim_and_thief(floor_broker, "bridge1", client_id)
    t2 = Client(floor_broker, "T2", PASSWORDS["T2"])
    try:
        assert not thief.result.is_failure
        assert thief.session_present == [False], "T1 was handed the bridge's saved session"
        assert bridge.dropped() is None, "the bridge was disconnected by a table's login"
        # the bridge still works: it commands T2, and T1 sees nothing of it
        assert not t2.subscribe(f"{SITE}/table/T2/cmd").is_failure
        bridge.publish(f"{SITE}/table/T2/cmd", b"pause")
        assert t2.received() == [(f"{SITE}/table/T2/cmd", b"pause")]
        assert thief.received(wait=0.2) == []
    finally:
        for c in (thief, bridge, t2):
            c.close()


def test_a_table_cannot_write_under_another_site(clients: dict[str, Client]) -> None:
    auditor, t1 = clients["auditor"], clients["T1"]
    assert not auditor.subscribe("pitboss/#").is_failure
    for topic in ("event", "state", "status", "secure/cards", "reply"):
        t1.publish(f"pitboss/v1/othersite/table/T1/{topic}", b"forged elsewhere")
    t1.publish("pitboss/v1/othersite/host/status", b"forged host")
    t1.publish(f"{SITE}/table/T1/event", b"t1's own event")  # the auditor does see T1
    assert auditor.received() == [(f"{SITE}/table/T1/event", b"t1's own event")]


def test_two_bridges_with_their_own_logins_share_the_load(clients: dict[str, Client]) -> None:
    b1, b2, t2 = clients["bridge1"], clients["bridge2"], clients["T2"]
    for b in (b1, b2):
        assert not b.subscribe(f"$share/bridge/{SITE}/table/+/event").is_failure
    sent = [(f"{SITE}/table/T2/event", str(k).encode()) for k in range(20)]
    for topic, payload in sent:
        t2.publish(topic, payload)
    got1, got2 = b1.received(), b2.received()
    assert sorted(got1 + got2) == sorted(sent)  # each event to one bridge, none lost
    assert b1.dropped(0) is None and b2.dropped(0) is None


def test_a_table_keeps_its_session_across_a_restart_under_the_login_bound_ids(
        floor_broker: Broker) -> None:
    """The table's session loop (BrokerSession) as a restarted controller runs it: its MQTT 5
    probe must not be given, and wipe, the table's saved session now that the broker makes
    the login the client id. A command sent while the table is down reaches it on restart."""
    settings = SessionSettings(host="127.0.0.1", port=floor_broker.port,
                               client_id="pitboss-floor1-T1", persistent=True,
                               username="T1", password=PASSWORDS["T1"],
                               tls_ca=str(floor_broker.ca))
    presence = Presence(f"{SITE}/table/T1/status", lambda up: b"online" if up else b"offline")

    async def controller(wait: float) -> list[bytes]:
        got: list[bytes] = []

        async def serve(client: aiomqtt.Client) -> None:
            async for message in client.messages:
                got.append(bytes(message.payload))  # type: ignore[arg-type]

        async with BrokerSession(settings, serve, presence=presence,
                                 subscriptions=lambda: [(f"{SITE}/table/T1/cmd", 1)]) as s:
            await asyncio.wait_for(s.connected.wait(), 15)
            assert s.mqtt_version == "5"
            await asyncio.sleep(wait)
        return got

    assert asyncio.run(controller(0)) == []  # the first boot: subscribes, then stops
    bridge = Client(floor_broker, "bridge1", PASSWORDS["bridge1"])
    try:
        bridge.publish(f"{SITE}/table/T1/cmd", b"pause while away")
    finally:
        bridge.close()
    assert asyncio.run(controller(1.5)) == [b"pause while away"]


def test_the_shipped_acl_names_the_site_and_the_generator_fills_it(
        capsys: pytest.CaptureFixture[str]) -> None:
    template = (DEPLOY / "pitboss.acl").read_text()
    rules = [line.split() for line in template.splitlines()
             if line.strip() and not line.startswith("#")]
    topics = [words[-1] for words in rules if words[0] in ("pattern", "topic")]
    assert topics and all(
        t.removeprefix("$share/bridge/").startswith("pitboss/v1/@SITE@/") for t in topics)
    written = render_acl(template, "casino1", ["bridge1", "bridge2"])
    lines = [line for line in written.splitlines() if not line.startswith("#")]
    assert "@SITE@" not in "\n".join(lines) and "pitboss/v1/+" not in written
    assert [w for w in lines if w.startswith("user ")] == ["user bridge1", "user bridge2"]
    for site in ("+", "#", "a/b", "", "two words"):
        with pytest.raises(AclError, match="cannot be written into the ACL"):
            render_acl(template, site, ["bridge1"])
    with pytest.raises(AclError, match="given twice"):
        render_acl(template, "casino1", ["bridge1", "bridge1"])
    assert bridge_cli(["acl", "--site", "casino1", "--bridge", "b1"]) == 0
    assert "topic read pitboss/v1/casino1/table/#" in capsys.readouterr().out
    assert bridge_cli(["acl", "--site", "+", "--bridge", "b1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "site '+' cannot be written into the ACL" in err
