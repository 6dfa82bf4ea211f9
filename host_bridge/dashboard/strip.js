// Pitboss floor page: the tournament strip and the floor summary behind it, from
// GET /api/v1/floor/summary. Per tournament: the level and the time left (counted down
// here from ends_at, corrected by the response's server_time), the blinds and ante in
// force and the next level's, break and colour-up, hand-for-hand (floor-wide: the
// director page holds its switch), players left of entries, the average stack, the prize
// pool and the next pay jump. The summary's `tables` map gives each table the level and
// blinds in force from the host's level clock, its size (the seats it has), its section
// and its state. Read at sign-in, again shortly after a feed event that moves a level, a
// break, a bust or a table, and every 20 s; a bridge without the route (404) shows no strip.
"use strict";

const SUMMARY_EVERY_MS = 20000;
const SUMMARY_SOON_MS = 400; // coalesce a burst of level changes into one read
// table events after which the host's summary has moved (levels, breaks, busts, tables)
const SUMMARY_EVENTS = new Set(["level_set", "clock_synced", "break_started", "break_ended",
  "paused", "resumed", "hand_for_hand_set", "colour_up_scheduled", "player_busted",
  "player_seated", "player_removed", "player_moved", "table_closed", "hand_released"]);

const summary = {
  body: null,        // the last summary read
  available: true,   // false once the bridge answered 404
  error: "",
  running: false,
  again: false,
  soon: null,        // the timer of a read asked for by the feed
  every: null,       // the periodic read
  breakAt: new Map(), // tournament id -> epoch of its next break (counted down here)
};

async function loadSummary() {
  if (summary.running) { summary.again = true; return; }
  summary.running = true;
  do {
    summary.again = false;
    try {
      const body = await api("/floor/summary");
      noteServerTime(body.server_time);
      takeSummary(body);
      summary.available = true;
      summary.error = "";
    } catch (err) {
      if (err.status === 401) { summary.running = false; signOut(err.message); return; }
      summary.available = err.status !== 404;
      summary.error = summary.available ? `The floor summary could not be read: ${err.message}`
        : "";
      touchStrip();
    }
  } while (summary.again);
  summary.running = false;
}

// Keep the new summary; tell the grid which tables' entries changed.
function takeSummary(body) {
  const before = (summary.body && summary.body.tables) || {};
  const after = body.tables || {};
  const changed = [];
  for (const id of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[id]) !== JSON.stringify(after[id])) changed.push(id);
  }
  summary.breakAt = new Map();
  for (const t of body.tournaments || []) {
    if (t.break_in_s !== null && t.break_in_s !== undefined && !t.paused) {
      summary.breakAt.set(t.id, body.server_time + t.break_in_s);
    }
  }
  summary.body = body;
  summaryChanged(changed);
}

function summarySoon() {
  if (summary.soon || !summary.available) return;
  summary.soon = setTimeout(() => { summary.soon = null; loadSummary(); }, SUMMARY_SOON_MS);
}

function startSummary() {
  loadSummary();
  clearInterval(summary.every);
  summary.every = setInterval(() => { if (state.token) loadSummary(); }, SUMMARY_EVERY_MS);
}

// The summary's entry for a table (null without one).
const summaryOf = (tableId) => (summary.body && summary.body.tables
  && summary.body.tables[tableId]) || null;

// The prize pool and the prizes come in cents (the director's money): shown as dollars,
// with cents only when there are some.
function dollars(cents) {
  if (cents === null || cents === undefined) return "–";
  const whole = cents % 100 === 0;
  return (cents / 100).toLocaleString("en-US", { style: "currency", currency: "USD",
    minimumFractionDigits: whole ? 0 : 2, maximumFractionDigits: whole ? 0 : 2 });
}

function blindsText(x) {
  if (!x) return "–";
  return `${chips(x.small_blind)} / ${chips(x.big_blind)}${x.ante ? ` · ante ${chips(x.ante)}` : ""}`;
}

// A countdown: a live one from an epoch, or a held one (paused) from seconds left.
function countdown(endsAt, secondsLeft, paused, key) {
  if (!paused && endsAt !== null && endsAt !== undefined) {
    return h("span", { class: "count", dataset: { ends: endsAt, count: key } },
      clockText(endsAt - serverNow()));
  }
  return h("span", { class: paused ? "count held" : "count", dataset: { count: key } },
    clockText(secondsLeft));
}

function stripFact(label, value, key, extra = "") {
  return h("div", { class: `sfact${extra}`, dataset: { fact: key } },
    h("dt", {}, label), h("dd", {}, value));
}

function tournamentCard(t) {
  const flags = [];
  if (t.on_break) flags.push(h("span", { class: "badge break" }, "ON BREAK"));
  if (t.paused) flags.push(h("span", { class: "badge paused" }, "CLOCK PAUSED"));
  if (t.hand_for_hand) flags.push(h("span", { class: "badge h4h" }, "HAND-FOR-HAND"));
  if (t.colour_up) flags.push(h("span", { class: "badge colour" }, t.colour_up.toUpperCase()));
  const next = t.next ? `L${t.next.level} · ${blindsText(t.next)}` : "last level";
  const breakAt = summary.breakAt.get(t.id);
  const toBreak = t.on_break ? "now"
    : breakAt !== undefined ? countdown(breakAt, null, false, "break")
      : t.break_in_s !== null && t.break_in_s !== undefined
        ? countdown(null, t.break_in_s, true, "break") : "–";
  const pay = t.next_payout
    ? `${ordinal(t.next_payout.place)} ${dollars(t.next_payout.prize)} · `
      + `${t.next_payout.players_to_go} to go` : "–";
  return h("article", { class: "tourney", dataset: { tournament: t.id },
    "aria-label": `Tournament ${t.name}` },
  h("header", { class: "tourney-head" },
    h("h2", {}, h("a", { href: `director.html?t=${encodeURIComponent(t.id)}`,
      title: "the director page: seating, hand-for-hand, payouts" }, t.name)),
    t.stage ? h("span", { class: "stage" }, t.stage) : null, flags),
  h("dl", { class: "sfacts" },
    stripFact(t.on_break ? "Break" : "Level", t.level, "level", " big"),
    stripFact(t.on_break ? "Break ends in" : "Time left",
      countdown(t.ends_at, t.remaining_s, t.paused, "level"), "time-left", " big"),
    stripFact("Blinds", blindsText(t), "blinds", " big"),
    stripFact("Next", next, "next"),
    stripFact("Break in", toBreak, "break-in"),
    stripFact("Players", `${chips(t.players_left)} / ${chips(t.entries)}`, "players"),
    stripFact("Average", chips(t.average_stack), "average"),
    stripFact("Prize pool", dollars(t.prize_pool), "prize-pool"),
    stripFact("Next pay jump", pay, "next-payout")));
}

function renderStrip() {
  const strip = $("strip");
  const tournaments = (summary.body && summary.body.tournaments) || [];
  strip.hidden = !summary.available || (!tournaments.length && !summary.error);
  if (strip.hidden) return;
  patchChildren(strip, summary.error ? [h("p", { class: "form-error" }, summary.error)]
    : tournaments.map(tournamentCard));
}

function forgetSummary() {
  clearInterval(summary.every);
  clearTimeout(summary.soon);
  Object.assign(summary, { body: null, available: true, error: "", soon: null, every: null,
    breakAt: new Map(), again: false });
  $("strip").replaceChildren();
}
