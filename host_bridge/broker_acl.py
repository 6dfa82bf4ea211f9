"""``pitboss bridge acl``: the floor broker's ACL written from the shipped template
(deploy/mosquitto/pitboss.acl) for one site and its bridge logins.

Mosquitto's ACL cannot know the site, and a ``+`` in its place would let table T1 write
``pitboss/v1/othersite/table/T1/...``; the template says ``@SITE@`` and this fills it in.
The broker binds each client id to its login (``use_username_as_clientid``), so bridges
sharing the load each need a login of their own; the template's ``user bridge`` block (the
last block of the file) is repeated once for each of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

SITE = "@SITE@"  # the template's placeholder for the floor's site
BRIDGE_BLOCK = "user bridge\n"  # the template's bridge block starts here and runs to the end
# the same names as the bridge's settings accept for a site; a login likewise (no space,
# no %, no topic wildcard)
NAME = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
TEMPLATE = Path(__file__).resolve().parents[1] / "deploy" / "mosquitto" / "pitboss.acl"


class AclError(ValueError):
    """A site, a login or a template the ACL cannot be written from; the message says
    which and what to do."""


def render_acl(template: str, site: str, bridges: Sequence[str]) -> str:
    """The ACL for ``site`` with one bridge block per login in ``bridges``."""
    if not NAME.fullmatch(site):
        raise AclError(f"site {site!r} cannot be written into the ACL: use 1-64 letters, "
                       "digits or _ . : - (the tables' --site)")
    if not bridges:
        raise AclError("no bridge login given: name each bridge's login with --bridge")
    for login in bridges:
        if not NAME.fullmatch(login):
            raise AclError(f"bridge login {login!r} cannot be an ACL user: use 1-64 letters, "
                           "digits or _ . : -")
    if len(set(bridges)) != len(bridges):
        raise AclError("a bridge login is given twice: each bridge needs a login of its own "
                       "(the broker uses the login as the client id)")
    head, sep, block = template.partition(BRIDGE_BLOCK)
    if not sep or SITE not in head or SITE not in block:
        raise AclError(f"the template has no {SITE} or no {BRIDGE_BLOCK.strip()!r} block: "
                       "use deploy/mosquitto/pitboss.acl as shipped")
    blocks = [f"user {login}\n{block}" for login in bridges]
    lines = (head + "\n".join(blocks)).splitlines(keepends=True)
    filled = [line if line.startswith("#") else line.replace(SITE, site) for line in lines]
    note = (f"# Written by pitboss bridge acl for site {site}, bridges {', '.join(bridges)}:"
            " to change it, run that again.\n")
    return note + "".join(filled)
