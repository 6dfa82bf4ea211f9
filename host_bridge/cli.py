"""``pitboss bridge run``: start the host bridge (the lead wires it into ``pitboss``);
``pitboss bridge acl``: write the floor broker's ACL (:mod:`host_bridge.broker_acl`)."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from host_bridge.db import StoreError
from host_bridge.settings import CONFIG_ENV, SettingsError, load_settings


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pitboss bridge",
                                     description="The floor's host bridge.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="serve the API (settings: TOML file, PITBOSS_BRIDGE_*)")
    run.add_argument("--config", type=Path, default=None,
                     help=f"TOML settings file (default: ${CONFIG_ENV}, if set)")
    run.add_argument("--host", default=None, help="listen address (overrides listen_host)")
    run.add_argument("--port", type=int, default=None, help="listen port (overrides listen_port)")
    run.add_argument("--database-url", default=None, help="overrides database_url")
    acl = sub.add_parser("acl", help="write the floor broker's ACL for a site and its bridges")
    acl.add_argument("--site", required=True, help="the floor's site (the tables' --site)")
    acl.add_argument("--bridge", action="append", required=True, dest="bridges",
                     metavar="LOGIN", help="a bridge's broker login (repeat for each bridge)")
    acl.add_argument("--template", type=Path, default=None,
                     help="the ACL template (default: deploy/mosquitto/pitboss.acl)")
    return parser


def _acl(args: argparse.Namespace) -> int:
    from host_bridge.broker_acl import TEMPLATE, AclError, render_acl
    path = args.template or TEMPLATE
    try:
        template = path.read_text()
    except OSError as exc:
        print(f"pitboss bridge acl: cannot read the template {path}: {exc.strerror}; "
              "give deploy/mosquitto/pitboss.acl with --template", file=sys.stderr)
        return 2
    try:
        sys.stdout.write(render_acl(template, args.site, args.bridges))
    except AclError as exc:
        print(f"pitboss bridge acl: {exc}", file=sys.stderr)
        return 2
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; 0 on a clean stop, 2 on bad settings or an unusable store."""
    args = _parser().parse_args(argv)
    if args.command == "acl":
        return _acl(args)
    overrides = {key: value for key, value in (
        ("listen_host", args.host), ("listen_port", args.port),
        ("database_url", args.database_url)) if value is not None}
    try:
        settings = load_settings(args.config, **overrides)
    except SettingsError as exc:
        print(f"pitboss bridge: {exc}", file=sys.stderr)
        return 2
    if not settings.tokens:
        print("pitboss bridge: warning: no tokens are configured, so every request will be "
              "refused (401); add [[tokens]] to the settings file", file=sys.stderr)
    import uvicorn  # imported here: the rest of the CLI does not need a server

    from host_bridge.app import create_app
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    try:
        app = create_app(settings, connect=True)
    except StoreError as exc:
        print(f"pitboss bridge: {exc}", file=sys.stderr)
        return 2
    uvicorn.run(app, host=settings.listen_host, port=settings.listen_port, log_level="info")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
