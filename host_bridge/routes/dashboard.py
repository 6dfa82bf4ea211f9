"""The floor dashboard: static files (``host_bridge/dashboard/``) served at ``/dashboard/``.

The page is plain HTML, CSS and JavaScript with no build step. It asks for a bearer token,
reads ``/api/v1/tables``, follows ``/api/v1/feed`` and posts commands to
``/api/v1/tables/{id}/commands``; the API's roles decide what it may do, the page only
hides what a role may not send.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import RedirectResponse
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

PAGES = Path(__file__).resolve().parent.parent / "dashboard"
PATH = "/dashboard"
# the page loads only its own files and talks only to its own bridge
POLICY = ("default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; "
          "style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
          "form-action 'none'")


class DashboardFiles(StaticFiles):
    """The dashboard's files, each sent with a content security policy and no caching
    (a bridge upgrade must not leave an old script in a browser)."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        """The file at ``path`` with the dashboard's headers."""
        response = await super().get_response(path, scope)
        response.headers["Content-Security-Policy"] = POLICY
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Cache-Control"] = "no-cache"
        return response


def mount(app: FastAPI) -> None:
    """Serve the dashboard at ``/dashboard/``; ``/`` and ``/dashboard`` lead there."""

    async def to_dashboard() -> RedirectResponse:
        return RedirectResponse(f"{PATH}/")

    app.add_api_route("/", to_dashboard, include_in_schema=False)
    app.add_api_route(PATH, to_dashboard, include_in_schema=False)
    app.mount(PATH, DashboardFiles(directory=PAGES, html=True), name="dashboard")
