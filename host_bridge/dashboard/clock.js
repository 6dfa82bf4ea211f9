// The players' clock screen (issue 19): public and read-only, no sign-in. At /clock it
// lists the tournaments; at /clock/<id> it shows one. The host's level clock is the
// authority: the page polls GET /api/v1/public/tournaments/<id>/clock every few seconds
// and counts down locally in between, so the seconds tick smoothly and a late or lost
// poll only delays the next re-sync.
"use strict";

const API = "/api/v1/public";
const POLL_MS = 3000;
const LIST_MS = 10000;
const MAX_PAYOUT_ROWS = 10;
const c = { tid: null, face: null, at: 0, serverTime: -Infinity, failures: 0, shown: {} };
const $ = (id) => document.getElementById(id);
const chips = (n) => Number(n).toLocaleString("en-US");

/** Cents as dollars; with cents only when ``withCents`` (a table shows all alike). */
function money(cents, withCents = cents % 100 !== 0) {
  const digits = withCents ? 2 : 0;
  return (cents / 100).toLocaleString("en-US", { style: "currency", currency: "USD",
    minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th");
  return `${n}${suffix}`;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const child of children) node.append(child);
  return node;
}

/** Set a node's text only when it changes (the timer repaints four times a second). */
function put(id, text) {
  if (c.shown[id] !== text) {
    c.shown[id] = text;
    $(id).textContent = text;
  }
}

/** Seconds as M:SS or H:MM:SS, rounded up: 0:01 shows until the last second is gone. */
function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds - 1e-6));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${String(m).padStart(2, "0")}:${ss}`;
}

async function get(path) {
  let response;
  try {
    response = await fetch(API + path, { cache: "no-store" });
  } catch (err) {
    throw new Error(`the bridge cannot be reached (${err.message})`);
  }
  let body = null;
  try { body = await response.json(); } catch { body = null; }
  if (!response.ok) {
    const error = new Error((body && typeof body.detail === "string" && body.detail)
      || `HTTP ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return body;
}

/** Seconds since the face was read, when its clock runs; 0 when it stands still. */
function elapsed(face) {
  return face.counting ? (face.rate || 1) * (performance.now() - c.at) / 1000 : 0;
}

function blindsText(level) {
  return `${chips(level.small_blind)} / ${chips(level.big_blind)}`;
}

function antesText(level) {
  const parts = [];
  if (level.ante) parts.push(`Ante ${chips(level.ante)}`);
  if (level.big_blind_ante) parts.push(`BB ante ${chips(level.big_blind_ante)}`);
  return parts.join(" · ");
}

/** The countdowns, from the last face read and the time since (every 250 ms). */
function tick() {
  const f = c.face;
  if (!f) return;
  const gone = elapsed(f);
  if (f.state === "finished" || f.state === "cancelled") {
    put("c-timer", f.state === "finished" ? "FINISHED" : "CANCELLED");
  } else {
    put("c-timer", clockText(f.seconds_left - gone));
  }
  put("c-time", new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }));
  put("c-break-in", f.seconds_to_break === null ? "" : clockText(f.seconds_to_break - gone));
}

function labelFor(f) {
  switch (f.state) {
    case "registering": return `Starting soon · Level ${f.level.level}`;
    case "finished": return f.winner ? `Winner: ${f.winner}` : "Finished";
    case "cancelled": return "Cancelled";
    default: return f.on_break ? "Break" : `Level ${f.level.level}`;
  }
}

/** The blinds to show big: on a break, those of the level after it (the players' next). */
function blindsLines(f) {
  const after = f.on_break && f.next_level;
  if (!after) return [blindsText(f.level), antesText(f.level)];
  return [blindsText(after), [`Level ${after.level} after the break`, antesText(after)]
    .filter(Boolean).join(" · ")];
}

function renderPayouts(f) {
  const shown = f.payouts.slice(0, MAX_PAYOUT_ROWS);
  const cents = shown.some((p) => p.amount % 100 !== 0);
  const rows = shown.map((p) => el("tr", { "data-place": p.place },
    el("th", { scope: "row" }, ordinal(p.place)), el("td", {}, money(p.amount, cents))));
  $("c-payouts").replaceChildren(...rows);
  const more = f.payouts.length - rows.length;
  $("c-more-places").hidden = more <= 0;
  $("c-more-places").textContent = more > 0
    ? `…and ${more} more places, ${ordinal(MAX_PAYOUT_ROWS + 1)} to ${ordinal(f.places_paid)}` : "";
  $("c-payouts-title").textContent = f.places_paid
    ? `Payouts · ${f.places_paid} ${f.places_paid === 1 ? "place" : "places"} paid` : "Payouts";
}

function render(f) {
  document.body.dataset.state = f.state;
  document.title = `${f.name} · clock`;
  put("c-name", f.name);
  put("c-label", labelFor(f));
  $("c-banner").hidden = !f.paused;  // a break says BREAK in the label, in its colour
  put("c-banner", f.paused ? "PAUSED" : "");
  const [blinds, antes] = blindsLines(f);
  put("c-blinds", blinds);
  put("c-antes", antes);
  $("c-next-line").hidden = f.on_break;  // the level after the break is the big one then
  put("c-next", f.next_level
    ? `${blindsText(f.next_level)}${antesText(f.next_level) ? ` · ${antesText(f.next_level)}` : ""}`
    : "last level");
  put("c-break-in-key", f.on_break ? "Next break in" : "Break in");
  $("c-break-in-line").hidden = f.seconds_to_break === null;
  const players = `${chips(f.players_left)} / ${chips(f.entries)}`;
  put("c-players", players);
  put("c-average", f.players_left ? chips(f.average_stack) : "–");
  put("c-average-bb", f.players_left
    ? `${Math.floor(f.average_stack / f.level.big_blind)} big blinds` : "");
  put("c-pool", money(f.prize_pool));
  renderPayouts(f);
  tick();
}

function offline(text) {
  $("c-offline").hidden = !text;
  $("c-offline").textContent = text;
}

async function poll() {
  try {
    const face = await get(`/tournaments/${encodeURIComponent(c.tid)}/clock`);
    c.failures = 0;
    offline("");
    if (face.server_time < c.serverTime) return;  // an older answer overtaken by a newer one
    c.face = face;
    c.at = performance.now();
    c.serverTime = face.server_time;
    render(face);
  } catch (err) {
    c.failures += 1;
    if (err.status === 404) {
      offline(`${err.message}. Pick a tournament at /clock.`);
    } else if (c.failures >= 2) {  // one lost poll is not worth a word on the screen
      offline(`Reconnecting to the bridge… (${err.message}); the clock counts on meanwhile.`);
    }
  }
}

async function listTournaments() {
  try {
    const all = await get("/tournaments");
    $("c-pick-none").hidden = all.length > 0;
    $("c-list").replaceChildren(...all.map((t) => el("li", {}, el("a",
      { href: `/clock/${encodeURIComponent(t.id)}`, "data-tournament": t.id }, t.name,
      el("span", { class: "c-stage" }, t.stage)))));
  } catch (err) {
    $("c-pick-none").hidden = false;
    $("c-pick-none").textContent = `The tournaments cannot be listed: ${err.message}`;
  }
}

function chosen() {
  const m = location.pathname.match(/^\/clock\/(.+)$/);
  if (m) return decodeURIComponent(m[1]);
  return new URLSearchParams(location.search).get("t");
}

function start() {
  c.tid = chosen();
  if (!c.tid) {
    document.body.dataset.state = "picking";
    $("c-pick").hidden = false;
    listTournaments();
    setInterval(listTournaments, LIST_MS);
    return;
  }
  $("c-face").hidden = false;
  poll();
  setInterval(poll, POLL_MS);
  setInterval(tick, 250);
}

start();
