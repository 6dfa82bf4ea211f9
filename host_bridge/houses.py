"""The house files the floor may put on a table (issue 18): the shipped ones in the
bridge's ``houses_dir`` (``deploy/houses/*.toml``), and the check every house text passes
before it is sent.

The bridge reads a house with the table's own reader
(:func:`controller.clocks.house.parse_house`), so a file the table would refuse is refused
here first, naming its field, line and rule, and nothing reaches the table. A shipped file
that fails is listed with its error, not hidden: the floor sees that it needs fixing.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request, status
from fastapi.responses import JSONResponse

from controller.clocks.house import House, HouseError, load_house, parse_house
from host_bridge.schemas import HouseFilePublic, HouseRefusalPublic


class HouseRefused(Exception):
    """A house change the bridge did not send, or the table did not take; the response
    carries the reason and, where known, the field, line and rule, the shipped houses
    (an unknown name) or the command_id (a table's refusal)."""

    def __init__(self, status_code: int, refusal: HouseRefusalPublic) -> None:
        super().__init__(refusal.detail)
        self.status_code = status_code
        self.refusal = refusal


def check_house_text(text: str, source: str = "the house text") -> House:
    """The house ``text`` describes; :class:`HouseRefused` (422) with the reader's field,
    line and rule when a table could not play it."""
    try:
        return parse_house(text, source)
    except HouseError as exc:
        raise HouseRefused(status.HTTP_422_UNPROCESSABLE_CONTENT, HouseRefusalPublic(
            detail=f"{exc}; nothing was sent: correct the house and send it again",
            field=exc.field or None, line=exc.line, rule=exc.rule)) from None


def house_files(directory: Path) -> list[Path]:
    """The ``*.toml`` files of ``directory``, by name (none if it cannot be read)."""
    try:
        return sorted(p for p in directory.glob("*.toml") if p.is_file())
    except OSError:
        return []


def shipped(directory: Path) -> tuple[list[HouseFilePublic], str | None]:
    """Every house file in ``directory``, read as a table reads it, and why the directory
    itself could not be read (None if it could)."""
    if not directory.is_dir():
        return [], (f"the houses directory {directory} does not exist; set houses_dir in "
                    "the bridge's settings to the folder of the house files "
                    "(deploy/houses)")
    listed = []
    for path in house_files(directory):
        try:
            house = load_house(path)
        except HouseError as exc:
            listed.append(HouseFilePublic(file=path.stem, error=str(exc)))
            continue
        listed.append(HouseFilePublic(file=path.stem, name=house.name, kind=house.kind,
                                      unit=house.unit, label=house.label))
    return listed, None


def shipped_text(directory: Path, name: str) -> tuple[str, str]:
    """The text of the shipped house ``name`` (a file stem) and its file name;
    :class:`HouseRefused` (404, with the list) when there is no such house."""
    files = house_files(directory)
    found = next((p for p in files if p.stem == name), None)
    if found is None:
        names = [p.stem for p in files]
        listed = ", ".join(names) or f"none: {directory} holds no house file"
        raise HouseRefused(status.HTTP_404_NOT_FOUND, HouseRefusalPublic(
            detail=f"no shipped house {name!r}; the shipped houses are: {listed} "
                   "(GET /api/v1/houses)", houses=names))
    try:
        return found.read_text(encoding="utf-8"), found.name
    except (OSError, UnicodeDecodeError) as exc:
        raise HouseRefused(status.HTTP_422_UNPROCESSABLE_CONTENT, HouseRefusalPublic(
            detail=f"{found.name} cannot be read ({exc}); nothing was sent: ask the "
                   "bridge's admin to fix the file")) from None


async def _refused(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HouseRefused)
    return JSONResponse(status_code=exc.status_code,
                        content=exc.refusal.model_dump(mode="json", exclude_none=True))


def install(app: FastAPI) -> None:
    """Answer :class:`HouseRefused` with its status and reasons."""
    app.add_exception_handler(HouseRefused, _refused)
