"""The store's connection pool is never exhausted by the floor's pages and the director
together (issue 20, item 5): as many sessions as the server's worker threads hold at once,
plus the event loop's and the ingest's, all get a connection without waiting."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from sqlalchemy import func, select

from host_bridge.db import SQLITE_POOL, make_engine, migrate, session_factory, writer_sessions
from host_bridge.models import PokerTable

PAGES = 40  # the server's worker threads: every plain-function route at once
OTHERS = 4  # the event loop (director, alert board), the ingest thread, the command desk


def test_pages_and_the_director_together_never_exhaust_the_pool(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/bridge.db")
    migrate(engine)
    sessions = session_factory(engine)
    writers = writer_sessions(sessions)
    holding = threading.Barrier(PAGES + OTHERS, timeout=20)

    def page(_: int) -> int:  # a page's read, held while the others read too
        with sessions() as session:
            count = session.scalar(select(func.count()).select_from(PokerTable)) or 0
            holding.wait()
            return count

    def director(i: int) -> int:  # a director's journal write among them
        with writers() as session, session.begin():
            session.add(PokerTable(id=f"t{i}", online=False, acked_seq=0, level=1,
                                   paused=False, hand_for_hand=False, closed=False,
                                   hand_no=0, hand_in_progress=False))
        with sessions() as session:
            session.scalar(select(PokerTable.id).limit(1))
            holding.wait()
        return 1

    with ThreadPoolExecutor(PAGES + OTHERS) as pool:
        pages = [pool.submit(page, i) for i in range(PAGES)]
        directors = [pool.submit(director, i) for i in range(OTHERS)]
        assert all(f.result(timeout=60) >= 0 for f in pages)
        assert sum(f.result(timeout=60) for f in directors) == OTHERS
    assert sum(SQLITE_POOL) >= PAGES + OTHERS
    with sessions() as session:
        assert session.scalar(select(func.count()).select_from(PokerTable)) == OTHERS
    engine.dispose()
