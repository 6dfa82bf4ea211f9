"""The cards the tables' readers read (issue 21): the secret half of each ``card_read``
event, stored for the dispute timeline (:mod:`host_bridge.timeline`) and nothing else.

The ingest (:mod:`host_bridge.ingest`) takes a ``secure/cards`` message with ``what``
"read" here: :func:`take_read` notes it on the table's cursor (its ``card_read`` counts as
stored only with it, as a ``hole_dealt`` does with its hole cards, so the table never
prunes a read the bridge does not hold) and queues its row with the batch's hole cards;
:func:`flush_reads` takes those rows out and inserts them in bulk, a row already stored
(a resend after a restart) left as it is; :func:`read_seqs` tells a cursor loaded from the
store which reads arrived before their events. A card is never logged.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from controller.sync.messages import SecureCards
from host_bridge.ingest_parts import _Batch, _Cursor
from host_bridge.models import CardReadRecord

UNREAD = "??"  # a read half that names no card (malformed): kept, so its event completes
_ROW_KEY = "card"  # a read's row among the batch's hole-card rows (theirs have "cards")


def take_read(cursor: _Cursor, batch: _Batch, message: SecureCards, now: float) -> bool:
    """Queue the card of the ``card_read`` with the same seq; True when it is new, False
    for a copy (stored already, or waiting in the cursor): the caller counts that."""
    seq = message.seq
    if seq <= cursor.acked_seq or seq in cursor.cards:
        return False
    cursor.cards.add(seq)  # its card_read is complete now
    cards = message.cards
    card = cards[0] if len(cards) == 1 and cards[0] is not None else UNREAD
    batch.cards.append({"table_id": message.table, "seq": seq, "hand_no": message.hand_no,
                        _ROW_KEY: card, "received_at": now})
    return True


def flush_reads(session: Session, rows: list[dict[str, Any]]) -> bool:
    """Insert the read rows among the batch's hole-card ``rows`` (taken out of the list,
    in place); True if hole-card rows remain for the caller to insert."""
    reads = [r for r in rows if _ROW_KEY in r]
    if not reads:
        return bool(rows)
    rows[:] = [r for r in rows if _ROW_KEY not in r]
    if session.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert  # type: ignore[assignment]
    session.execute(insert(CardReadRecord).on_conflict_do_nothing(
        index_elements=["table_id", "seq"]), reads)
    return bool(rows)


def read_seqs(session: Session, table_id: str, acked_seq: int) -> list[int]:
    """The seqs above ``acked_seq`` whose read is stored (their ``card_read`` may not be
    yet): a cursor loaded from the store counts them as arrived, as it does hole cards."""
    return list(session.scalars(select(CardReadRecord.seq).where(
        CardReadRecord.table_id == table_id, CardReadRecord.seq > acked_seq)))


def cards_read(session: Session, table_id: str, seqs: Iterable[int]) -> dict[int, str]:
    """The cards of the ``card_read`` events at ``seqs`` of ``table_id``, by seq (a read
    whose half has not arrived is missing)."""
    wanted = sorted(set(seqs))
    if not wanted:
        return {}
    rows = session.execute(select(CardReadRecord.seq, CardReadRecord.card).where(
        CardReadRecord.table_id == table_id, CardReadRecord.seq >= wanted[0],
        CardReadRecord.seq <= wanted[-1]))
    keep = set(wanted)
    return {seq: card for seq, card in rows if seq in keep}
