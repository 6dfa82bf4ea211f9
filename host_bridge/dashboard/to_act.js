// Pitboss floor dashboard: who is to act at each table, from the live feed's events.
// Loaded before app.js, whose `state` it reads and writes (turnsSeen, turnsMissed, hands,
// blinds).
"use strict";

// ------------------------------------------------------------------ who acts
// Follows the public events of the hand in progress (positions as in PHH: 0 is left of
// the button, the last is the button): the blinds, the first to act pre-flop after the
// big blind, the first live seat after the button on later streets. The table's rules
// decide; this is the floor's view of them, and it counts any action by someone else.
function newHand(ev) {
  const n = ev.seats.length;
  const hand = {
    seats: ev.seats, left: [...ev.stacks], bets: new Array(n).fill(0),
    folded: new Set(), acted: new Set(), toAct: null,
  };
  const post = (pos, amount) => {
    const paid = Math.min(amount, hand.left[pos]);
    hand.bets[pos] += paid;
    hand.left[pos] -= paid;
  };
  let first = 2 % n;
  if (n === 2) { // heads-up the button (index 1) posts the small blind and acts first
    post(1, ev.small_blind);
    post(0, ev.big_blind);
    first = 1;
  } else if (ev.small_blind === 0) { // dead button, no small blind: index 0 posts the big
    post(0, ev.big_blind);
    first = 1;
  } else if (n > 2) {
    post(0, ev.small_blind);
    post(1, ev.big_blind);
  }
  hand.toAct = nextToAct(hand, first);
  return hand;
}

function canAct(hand, pos) {
  return !hand.folded.has(pos) && hand.left[pos] > 0;
}

function nextToAct(hand, from) {
  const n = hand.seats.length;
  const live = hand.seats.filter((_, p) => !hand.folded.has(p)).length;
  if (live < 2) return null;
  const top = Math.max(...hand.bets);
  const waiting = hand.seats.map((_, p) => p).filter((p) => canAct(hand, p)
    && (!hand.acted.has(p) || hand.bets[p] < top));
  if (waiting.length === 0) return null; // the betting round is complete
  if (waiting.length === 1 && hand.bets[waiting[0]] >= top
      && hand.seats.filter((_, p) => canAct(hand, p)).length < 2) return null;
  for (let i = 0; i < n; i += 1) {
    const p = (from + i) % n;
    if (waiting.includes(p)) return p;
  }
  return null;
}

function followHand(tableId, ev) {
  if (ev.kind === "hand_started") {
    state.hands.set(tableId, newHand(ev));
    state.blinds.set(tableId, { small: ev.small_blind, big: ev.big_blind });
    return;
  }
  if (ev.kind === "hand_ended" || ev.kind === "hand_voided") {
    state.hands.delete(tableId);
    return;
  }
  const hand = state.hands.get(tableId);
  if (!hand) return;
  if (ev.kind === "board") {
    hand.bets.fill(0);
    hand.acted.clear();
    hand.toAct = nextToAct(hand, 0);
  } else if (ev.kind === "action") {
    const p = ev.player;
    if (ev.action === "show" || ev.action === "muck") {
      hand.toAct = null;
      return;
    }
    state.turnsSeen += 1; // how often the table's next actor was the one shown
    if (hand.toAct !== p) state.turnsMissed += 1;
    if (ev.action === "fold") hand.folded.add(p);
    if (ev.action === "call" && ev.amount !== null) {
      hand.bets[p] += ev.amount;
      hand.left[p] -= ev.amount;
    }
    if (ev.action === "bet_raise" && ev.amount !== null) {
      const more = ev.amount - hand.bets[p];
      hand.bets[p] = ev.amount;
      hand.left[p] -= more;
      hand.acted.clear();
    }
    hand.acted.add(p);
    hand.toAct = nextToAct(hand, (p + 1) % hand.seats.length);
  }
}

function seatToAct(tableId) {
  const hand = state.hands.get(tableId);
  if (!hand || hand.toAct === null) return null;
  return hand.seats[hand.toAct];
}
