"""The dealer's touch tablet: a page the table serves itself, for the Pi's touchscreen in a
kiosk browser or a tablet on the table's network. It draws the desk's
:class:`~controller.terminal.screen.Screen` and sends each tap to :meth:`Desk.do
<controller.terminal.desk.Desk.do>` as a :class:`~controller.terminal.commands.Command`;
the table's rules decide, and a refusal comes back with its rule id.

Why a hand-written ASGI app: the table installs no web framework (DESIGN.md: no FastAPI,
no database on the table; Starlette is not in ``pitboss[table]``), and the page needs
eight routes, a cookie and one Server-Sent Events stream. That is about two hundred lines
over the ASGI spec, served by uvicorn (which the table extra has); a framework would
add more code to the Pi than it saves here.

Routes: ``GET /login`` and ``POST /login`` (the table's token for an HttpOnly,
SameSite=Strict cookie), ``POST /logout``, ``GET /`` (the page), ``GET /static/<file>``
(the page's own CSS and JS: no CDN, so it works with the floor's network gone),
``GET /api/screen``, ``GET /api/stream`` (a screen on every desk change, coalesced, and at
least once a second for the clocks) and ``POST /api/command``. The page and every
``/api`` route answer 401 without the token (the cookie, or ``Authorization: Bearer``):
the screen may name hole cards in an open prompt, so only a signed-in tablet sees it.
A malformed command is a 400 with one sentence, never a traceback.

A screen carries ``seq``, the order the app drew it in: the page draws a frame only if
it is newer than the one it shows (a command's answer and the stream race each other).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import html
import json
import logging
import math
import os
import secrets
import socket
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from http.cookies import CookieError, SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from controller.rules.button import SEATS
from controller.table.intents import Origin

from .commands import Command, Reply, Verb
from .desk import Desk

log = logging.getLogger("pitboss.tablet")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

STATIC = Path(__file__).with_name("static")
COOKIE = "pitboss_tablet"
BEAT_S = 1.0  # the stream sends a screen at least this often (the clocks move)
MAX_BODY = 8192  # bytes: a command or a login is far smaller
MAX_CHIPS = 10**12  # larger than any stack: a bound for what a field may hold
_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
          ".svg": "image/svg+xml", ".png": "image/png", ".html": "text/html; charset=utf-8"}
_HEADERS = [  # every answer: no framing, no sniffing, no referrer, nothing cached
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; "
     b"frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
    (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store")]
_FIELDS = ("verb", "seat", "amount", "bb", "chips", "option", "name", "index", "action",
           "turn")
WRONG_TOKEN = ("that is not this table's token: read it from the table's tablet.token file "
               "(next to its journal) and try again")


class TabletError(Exception):
    """The tablet cannot be served as configured (its token file, its port)."""


class BadCommand(ValueError):
    """A command body the tablet cannot read; the message says what to send instead."""


# ---------------------------------------------------------------------------- the token
def tablet_token(path: str | os.PathLike[str]) -> str:
    """The table's tablet token, read from ``path`` or made there the first time (readable
    by the table's user only, mode 0600)."""
    file = Path(path)
    try:
        token = file.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        token = secrets.token_urlsafe(32)
        file.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it first: use theirs
            return tablet_token(file)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(token + "\n")
        log.info("made a new tablet token in %s", file)
        return token
    except (OSError, UnicodeDecodeError) as exc:
        raise TabletError(f"cannot read the tablet token {file}: {exc}; fix its "
                          "permissions or delete it for a new one") from None
    if len(token) < 16 or any(c.isspace() for c in token):
        raise TabletError(f"{file} holds no usable tablet token (one word of at least 16 "
                          "characters): delete it and the table makes a new one")
    if file.stat().st_mode & 0o077:
        log.warning("%s was readable by other users: made it 0600", file)
        file.chmod(0o600)
    return token


def session_of(token: str) -> str:
    """The cookie a signed-in tablet holds: derived from the token, never the token."""
    return hmac.new(token.encode(), b"pitboss tablet session", hashlib.sha256).hexdigest()


# ---------------------------------------------------------------------------- commands
def command_of(body: object) -> Command:
    """The :class:`Command` a JSON body names, every field checked for its type and range;
    :class:`BadCommand` says what is wrong. Poker sense (a bet below the minimum) is the
    table's to judge, not this function's."""
    if not isinstance(body, dict):
        raise BadCommand('send a JSON object such as {"verb": "call", "turn": "..."}')
    unknown = sorted(set(body) - set(_FIELDS))
    if unknown:
        raise BadCommand(f"unknown field {', '.join(map(repr, unknown))}: a command has "
                         f"{', '.join(_FIELDS)}")
    if "verb" not in body:
        raise BadCommand("a command needs a verb, e.g. \"fold\"")
    chips = body.get("chips", [])
    if not isinstance(chips, list) or len(chips) > 64:
        raise BadCommand("chips must be a list of at most 64 whole numbers")
    bb = body.get("bb")
    if bb is not None and (isinstance(bb, bool) or not isinstance(bb, int | float)
                           or not math.isfinite(bb) or not 0 < bb <= 10**6):
        raise BadCommand(f"bb must be a number of big blinds above 0, not {bb!r}")
    return Command(
        verb=_verb(body["verb"], "verb"), seat=_int(body, "seat", 1, SEATS),
        amount=_int(body, "amount", 1, MAX_CHIPS), bb=None if bb is None else float(bb),
        chips=tuple(_whole(c, "each chip", 0, MAX_CHIPS) for c in chips),
        option=_text(body, "option", 64), name=_text(body, "name", 64),
        index=_int(body, "index", 0, 10_000),
        action=None if body.get("action") is None else _verb(body["action"], "action"),
        turn=_text(body, "turn", 200))


def _verb(value: object, field: str) -> Verb:
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            return Verb(value)
    raise BadCommand(f"{field} {value!r} is not a terminal command; one of: "
                     + ", ".join(v.value for v in Verb))


def _whole(value: object, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadCommand(f"{what} must be a whole number from {low} to {high}, not {value!r}")
    return value


def _int(body: dict[str, object], field: str, low: int, high: int) -> int | None:
    value = body.get(field)
    return None if value is None else _whole(value, field, low, high)


def _text(body: dict[str, object], field: str, longest: int) -> str | None:
    value = body.get(field)
    if value is not None and (not isinstance(value, str) or len(value) > longest):
        raise BadCommand(f"{field} must be a text of at most {longest} characters")
    return value


def tap_of(command: Command) -> str:
    """A tap in words for the journal (``tap: bet amount=1200 seat=3``): the command and
    the fields the page sent, the screen's turn left out."""
    said = [f"{name}={'+'.join(map(str, value)) if isinstance(value, tuple) else value}"
            for name in _FIELDS[1:-1] if (value := getattr(command, name)) not in (None, ())]
    return " ".join(["tap:", command.verb.value, *said])


def reply_json(reply: Reply) -> dict[str, object]:
    return {"accepted": reply.accepted, "message": reply.message, "rule": reply.rule,
            "line": reply.line}


# ---------------------------------------------------------------------------- the app
class TabletApp:
    """The ASGI application over one table's :class:`Desk` (see the module docstring).

    ``failed`` is set when the table's path raised (a journal that cannot write, a bug):
    the tap gets a 500 with a sentence and :func:`serve_tablet` stops with the error, so
    the table stops as it would for the same failure at the keypad."""

    def __init__(self, desk: Desk, token: str, *, beat_s: float = BEAT_S) -> None:
        self.desk = desk
        self.token = token
        self.session = session_of(token)
        self.beat_s = beat_s
        self.failed: BaseException | None = None
        self.on_failure: Callable[[], None] = lambda: None
        self._seq = 0
        self._streams: set[asyncio.Event] = set()
        self._closing = False
        self._static = {f.name: (f.read_bytes(), _TYPES[f.suffix])
                        for f in sorted(STATIC.iterdir()) if f.suffix in _TYPES}
        self._login_page = self._static.pop("login.html")[0].decode()
        self._page = self._static.pop("tablet.html")[0]

    def close(self) -> None:
        """End every stream (the server is stopping)."""
        self._closing = True
        for wake in self._streams:
            wake.set()

    def frame(self) -> dict[str, object]:
        """The screen now, numbered in the order drawn."""
        self._seq += 1
        return {"seq": self._seq, **self.desk.screen().as_json()}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":  # nothing to set up: the table is already there
            while (await receive())["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] != "http":
            return  # no websockets: the stream is Server-Sent Events
        method, path = scope["method"], scope["path"]
        signed_in = self._signed_in(scope)
        if path == "/login":
            if method == "GET":
                if signed_in:
                    return await _redirect(send, "/")
                return await self._login(send, 200, "")
            if method == "POST":
                return await self._sign_in(receive, send)
        elif path == "/logout" and method == "POST":
            return await _redirect(send, "/login", cookie=f"{COOKIE}=; Max-Age=0; Path=/; "
                                   "HttpOnly; SameSite=Strict")
        elif path.startswith("/static/") and method == "GET":
            found = self._static.get(path.removeprefix("/static/"))
            if found is not None:  # the page's own CSS and JS: nothing secret in them
                return await _respond(send, 200, found[0], found[1])
            return await _json(send, 404, {"error": f"no file {path}"})
        elif path == "/" and method == "GET":
            if not signed_in:
                return await self._login(send, 401, "sign in with the table's token")
            return await _respond(send, 200, self._page, _TYPES[".html"])
        elif path in ("/api/screen", "/api/stream", "/api/command"):
            if not signed_in:
                return await _json(send, 401, {"error": "sign in first: POST /login with "
                                               "the table's token, or send Authorization: "
                                               "Bearer <token>"})
            if path == "/api/screen" and method == "GET":
                return await _json(send, 200, self.frame())
            if path == "/api/stream" and method == "GET":
                return await self._stream(receive, send)
            if path == "/api/command" and method == "POST":
                return await self._command(scope, receive, send)
        else:
            return await _json(send, 404, {"error": f"no page {path}: the tablet is at /"})
        await _json(send, 405, {"error": f"{method} is not allowed on {path}"})

    # ---------------------------------------------------------------- sign-in
    def _signed_in(self, scope: Scope) -> bool:
        for name, value in scope["headers"]:
            if name == b"authorization":
                scheme, _, given = value.decode("latin-1").partition(" ")
                if scheme.lower() == "bearer" and hmac.compare_digest(
                        given.strip().encode(), self.token.encode()):
                    return True
            elif name == b"cookie":
                try:
                    jar = SimpleCookie(value.decode("latin-1"))
                except CookieError:
                    continue
                held = jar.get(COOKIE)
                if held is not None and hmac.compare_digest(held.value.encode(),
                                                            self.session.encode()):
                    return True
        return False

    async def _login(self, send: Send, status: int, message: str) -> None:
        note = html.escape(message, quote=False)
        said = f'<p class="login-note" role="alert">{note}</p>' if message else ""
        page = self._login_page.replace("<!--message-->", said)
        await _respond(send, status, page.encode(), _TYPES[".html"])

    async def _sign_in(self, receive: Receive, send: Send) -> None:
        body = await _body(receive)
        if body is None:
            return await self._login(send, 413, "the sign-in form was too large")
        given = parse_qs(body.decode("utf-8", "replace")).get("token", [""])[0].strip()
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            log.warning("tablet sign-in refused: wrong token")
            return await self._login(send, 401, WRONG_TOKEN)
        # no Secure flag: the table serves plain HTTP on its own network
        await _redirect(send, "/", cookie=f"{COOKIE}={self.session}; Path=/; HttpOnly; "
                        "SameSite=Strict; Max-Age=2592000")

    # ---------------------------------------------------------------- the api
    async def _command(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = dict(scope["headers"]).get(b"content-type", b"").split(b";")[0].strip()
        if kind != b"application/json":
            return await _json(send, 415, {"error": "send the command as application/json"})
        body = await _body(receive)
        if body is None:
            return await _json(send, 413, {"error": f"a command is at most {MAX_BODY} "
                                           "bytes"})
        try:
            command = command_of(json.loads(body, parse_constant=_no_constant))
        except BadCommand as exc:
            return await _json(send, 400, {"error": str(exc)})
        except ValueError:  # json's errors (UnicodeDecodeError too) are ValueErrors
            return await _json(send, 400, {"error": "the body is not JSON: send an object "
                                           'such as {"verb": "call"}'})
        try:
            reply = self.desk.do(command, Origin("tablet", tap_of(command)))
        except Exception as exc:  # the table's path failed: stop it, as the keypad would
            log.exception("the table failed on a tablet command (%s)", command.verb)
            self.failed = exc
            self.on_failure()
            return await _json(send, 500, {"error": "the table failed on that command and "
                                           "is stopping: see the controller's log"})
        await _json(send, 200, {"reply": reply_json(reply), "screen": self.frame()})

    async def _stream(self, receive: Receive, send: Send) -> None:
        """Server-Sent Events: a screen now, on every change (a burst of changes is one
        frame: the wake-up is one flag) and at least every ``beat_s`` for the clocks."""
        wake = asyncio.Event()
        gone = False

        async def watch() -> None:
            nonlocal gone
            while (await receive())["type"] != "http.disconnect":
                pass
            gone = True
            wake.set()

        self._streams.add(wake)
        unsubscribe = self.desk.subscribe(wake.set)
        watcher = asyncio.create_task(watch(), name="tablet-stream-watch")
        try:
            await send({"type": "http.response.start", "status": 200, "headers": [
                (b"content-type", b"text/event-stream; charset=utf-8"),
                (b"x-accel-buffering", b"no"), *_HEADERS]})
            await send({"type": "http.response.body", "body": b"retry: 1000\n\n",
                        "more_body": True})
            while not (gone or self._closing):
                wake.clear()
                frame = self.frame()
                data = json.dumps(frame, separators=(",", ":"))
                await send({"type": "http.response.body", "more_body": True,
                            "body": f"id: {frame['seq']}\nevent: screen\ndata: {data}\n\n"
                            .encode()})
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.beat_s):
                        await wake.wait()
            if not gone:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            unsubscribe()
            self._streams.discard(wake)
            watcher.cancel()


def _no_constant(name: str) -> object:
    raise BadCommand(f"{name} is not a number a command may hold")


async def _body(receive: Receive) -> bytes | None:
    """The request body, or None if it is larger than :data:`MAX_BODY`."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b"".join(chunks)
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _respond(send: Send, status: int, body: bytes, kind: str,
                   headers: list[tuple[bytes, bytes]] | None = None) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", kind.encode()), (b"content-length", str(len(body)).encode()),
        *_HEADERS, *(headers or [])]})
    await send({"type": "http.response.body", "body": body})


async def _json(send: Send, status: int, data: object) -> None:
    await _respond(send, status, json.dumps(data, separators=(",", ":")).encode(),
                   "application/json")


async def _redirect(send: Send, to: str, *, cookie: str | None = None) -> None:
    headers = [(b"location", to.encode())]
    if cookie is not None:
        headers.append((b"set-cookie", cookie.encode()))
    await _respond(send, 303, b"", "text/plain", headers)


# ---------------------------------------------------------------------------- serving
async def serve_tablet(desk: Desk, *, host: str, port: int, token: str,
                       ready: Callable[[int], None] | None = None,
                       beat_s: float = BEAT_S) -> None:
    """Serve the tablet page for ``desk`` on ``host:port`` until cancelled (run it in the
    caller's TaskGroup; it installs no signal handlers). ``ready(port)`` is called once
    it listens (``port=0``: the port the system chose). Raises :class:`TabletError` if
    the port cannot be had, and the table's own error if the table failed on a tap."""
    import uvicorn  # the table extra's; imported here so the module loads without it

    listening = asyncio.Event()

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:  # the caller's TaskGroup owns them
            yield

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            listening.set()

    app = TabletApp(desk, token, beat_s=beat_s)
    try:
        sock = socket.create_server((host, port))
        # a reply goes out in two writes (head, body): without TCP_NODELAY, Nagle and the
        # tablet's delayed ACK hold the body back ~40 ms. asyncio sets it only on sockets
        # made with proto IPPROTO_TCP; this one (proto 0) passes it on to those it accepts
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError as exc:
        raise TabletError(f"cannot serve the tablet on {host}:{port}: {exc.strerror}; "
                          "free the port or give the table another one") from None
    config = uvicorn.Config(app, lifespan="off", ws="none", access_log=False,
                            log_level="warning", timeout_graceful_shutdown=2)
    server = Server(config)

    def stop() -> None:
        app.close()
        server.should_exit = True

    app.on_failure = stop
    serving = asyncio.create_task(server.serve(sockets=[sock]), name="tablet-http")
    up = asyncio.create_task(listening.wait(), name="tablet-listening")
    try:
        await asyncio.wait({up, serving}, return_when=asyncio.FIRST_COMPLETED)
        if listening.is_set() and ready is not None:
            ready(sock.getsockname()[1])
        await asyncio.shield(serving)
    except BaseException:  # cancelled (or ``ready`` failed): a graceful stop, then go on
        stop()
        await serving  # the streams end, the connections and the socket close
        raise
    finally:
        up.cancel()
        sock.close()
    if app.failed is not None:
        raise app.failed
