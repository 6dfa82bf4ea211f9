"""Route dependencies: the settings, a database session, the bridge, and who is asking.

Every route names the roles it admits with :func:`require`. A missing or unknown token is a
401 with a ``WWW-Authenticate: Bearer`` header; a known token with the wrong role is a 403
naming the roles that would do.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session, sessionmaker

from host_bridge.bridge import Bridge
from host_bridge.settings import BridgeSettings, Role

bearer = HTTPBearer(auto_error=False, description="A token from the bridge's settings; its "
                    "role decides what it may do.")

READERS = frozenset(Role)
COMMANDERS_FLOOR = frozenset({Role.FLOOR, Role.DIRECTOR, Role.ADMIN})
COMMANDERS_DIRECTOR = frozenset({Role.DIRECTOR, Role.ADMIN})
AUDITORS = frozenset({Role.DIRECTOR, Role.ADMIN})
BROADCASTERS = frozenset({Role.BROADCAST})


@dataclass(frozen=True, slots=True)
class Principal:
    """Who sent the request: the grant's name (written to the audit log) and its role."""

    name: str
    role: Role


def get_settings(request: Request) -> BridgeSettings:
    """The app's settings."""
    settings: BridgeSettings = request.app.state.settings
    return settings


def get_bridge(request: Request) -> Bridge:
    """The app's bridge core."""
    bridge: Bridge = request.app.state.bridge
    return bridge


def get_session(request: Request) -> Iterator[Session]:
    """A session for one request."""
    sessions: sessionmaker[Session] = request.app.state.sessions
    with sessions() as session:
        yield session


def unauthorized(detail: str) -> HTTPException:
    """A 401 that tells the client how to authenticate."""
    return HTTPException(status.HTTP_401_UNAUTHORIZED, detail,
                         headers={"WWW-Authenticate": "Bearer"})


def principal_for(settings: BridgeSettings, token: str | None) -> Principal:
    """The grant ``token`` belongs to; raises the 401 if none."""
    if not token:
        raise unauthorized("missing bearer token: send 'Authorization: Bearer <token>' with a "
                           "token from the bridge's settings")
    found = None
    for grant in settings.tokens:  # compare with every grant, in constant time each
        if hmac.compare_digest(grant.token.get_secret_value().encode(), token.encode()):
            found = grant
    if found is None:
        raise unauthorized("bearer token not recognised: check it, or ask an admin for a "
                           "token (tokens are listed in the bridge's settings)")
    return Principal(found.name, found.role)


def authenticate(request: Request,
                 credentials: Annotated[HTTPAuthorizationCredentials | None,
                                        Depends(bearer)]) -> Principal:
    """Who is asking (401 if nobody we know)."""
    if credentials is None and request.headers.get("authorization"):
        raise unauthorized("the Authorization header is not a bearer token: send "
                           "'Authorization: Bearer <token>'")
    return principal_for(get_settings(request),
                         credentials.credentials if credentials else None)


def require(roles: frozenset[Role], what: str) -> Callable[..., Principal]:
    """A dependency admitting only ``roles``; ``what`` names the action in the 403."""
    names = ", ".join(sorted(r.value for r in roles))

    def check(principal: Annotated[Principal, Depends(authenticate)]) -> Principal:
        if principal.role not in roles:
            raise HTTPException(status.HTTP_403_FORBIDDEN,
                                f"role {principal.role.value!r} may not {what}; this needs "
                                f"one of: {names}")
        return principal

    return check


SessionDep = Annotated[Session, Depends(get_session)]
BridgeDep = Annotated[Bridge, Depends(get_bridge)]
SettingsDep = Annotated[BridgeSettings, Depends(get_settings)]
Reader = Annotated[Principal, Depends(require(READERS, "read the floor"))]
Auditor = Annotated[Principal, Depends(require(AUDITORS, "read the audit log"))]
Broadcaster = Annotated[Principal, Depends(require(BROADCASTERS, "see hole cards"))]
Commander = Annotated[Principal, Depends(require(COMMANDERS_FLOOR, "send commands"))]
Cashier = Annotated[Principal, Depends(require(COMMANDERS_FLOOR, "read the rake ledger"))]
