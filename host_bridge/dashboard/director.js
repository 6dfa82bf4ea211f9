// The tournament director's page: registration, the seat draw, balancing suggestions to
// confirm, hand-for-hand, places and payouts. It polls /api/v1/director/tournament; the
// API's roles decide what it may do, the page only hides what a role may not send.
"use strict";

const API = "/api/v1";
const TOKEN_KEY = "pitboss.token";  // shared with the floor page (this tab only)
const ACTORS = new Set(["director", "admin"]);
const t = { token: null, role: null, status: null, timer: null, busy: false };
const $ = (id) => document.getElementById(id);
const chips = (n) => Number(n).toLocaleString("en-US");
const money = (cents) => (cents / 100).toLocaleString("en-US",
  { style: "currency", currency: "USD" });

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

async function api(path, options = {}) {
  const headers = { Authorization: `Bearer ${t.token}`, "Content-Type": "application/json" };
  let response;
  try {
    response = await fetch(API + path, { ...options, headers });
  } catch (err) {
    throw new Error(`the bridge cannot be reached (${err.message}); check the network`);
  }
  let body = null;
  try { body = await response.json(); } catch { body = null; }
  if (!response.ok) {
    const detail = body && (body.message || (typeof body.detail === "string" ? body.detail : null));
    const error = new Error(detail || `HTTP ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return body;
}

function note(text) {
  const log = $("t-log");
  log.prepend(el("li", {}, `${new Date().toLocaleTimeString()} ${text}`));
  while (log.children.length > 8) log.lastChild.remove();
}

function render(s) {
  t.status = s;
  const minutes = Math.floor(s.seconds_left / 60);
  const seconds = String(Math.floor(s.seconds_left % 60)).padStart(2, "0");
  $("t-summary").textContent = `${s.name} · ${s.stage} · level ${s.level || 1} · `
    + `${s.players_left} of ${s.entries} left`;
  const facts = [
    ["Stage", s.stage], ["Level", String(s.level || 1)],
    ["Blinds", `${chips(s.blinds.small_blind)} / ${chips(s.blinds.big_blind)}`
      + (s.blinds.ante ? ` ante ${chips(s.blinds.ante)}` : "")],
    ["Clock", s.on_break ? `break ${minutes}:${seconds}` : `${minutes}:${seconds}`
      + (s.clock_paused ? " (stopped)" : "")],
    ["Players", `${s.players_left} / ${s.entries}`], ["Average", chips(s.average_stack)],
    ["Prize pool", money(s.prize_pool)], ["Paid", `${s.places_paid} places`],
  ];
  $("t-facts").replaceChildren(...facts.flatMap(([k, v]) => [el("dt", {}, k),
    el("dd", { "data-fact": k.toLowerCase() }, v)]));

  const actor = ACTORS.has(t.role);
  document.querySelectorAll(".director-only").forEach((n) => { n.hidden = !actor; });
  $("t-registered").textContent = `${s.registered.length} registered`
    + (s.stage === "registering" ? "; the seat draw has not been made." : ".");
  $("t-start").hidden = !actor || s.stage !== "registering";

  const moves = s.suggestions.flatMap((op) => op.moves.map((m) => ({ ...m, op: op.op })));
  $("t-balanced").hidden = moves.length > 0;
  $("t-balanced").textContent = s.stage === "running" ? "The tables are balanced."
    : "Nothing to balance.";
  $("t-moves").replaceChildren(...moves.map((m) => el("li", { "data-player": m.player },
    `${m.player}: ${m.from_table ? `table ${m.from_table} seat ${m.from_seat}` : "new entry"}`
    + ` → table ${m.to_table} seat ${m.to_seat} `, el("span", { class: "rule" },
      `${m.op === "break" ? "table broken" : m.op === "redraw" ? "final-table redraw"
        : "balance"} (${m.rule})`))));
  $("t-confirm").hidden = !actor || moves.length === 0 || s.auto_balance;

  const h = s.hand_for_hand;
  $("t-h4h-status").className = h.on ? "h4h-on" : "";
  $("t-h4h-status").textContent = h.on
    ? `On: hand ${h.hand}; ${h.waiting_for.length ? `waiting for ${h.waiting_for.join(", ")}`
      : "every table has finished it"}.`
    : (s.last_hands ? `Off. Last hands of the day: ${s.last_hands.card} each.` : "Off.");

  const most = Math.max(0, ...s.tables.filter((x) => !x.closed).map((x) => x.players.length));
  $("t-tables").replaceChildren(...s.tables.map((x) => {
    const short = !x.closed && x.players.length > 0 && most - x.players.length >= 2;
    return el("li", { class: `t-card${x.closed ? " closed" : ""}${short ? " short" : ""}`,
      "data-table": x.table },
    el("h3", {}, `Table ${x.table}${x.closed ? " (broken)" : ""} · ${x.players.length}/${x.seats}`
      + (x.paused ? " · held" : "")),
    el("ol", {}, ...x.players.map((p) => el("li", { value: p.seat,
      class: p.arriving ? "arriving" : "", "data-seat": p.seat },
    `${p.player} ${chips(p.stack)}${p.arriving ? " (moving here)" : ""}`))));
  }));

  $("t-prizes").textContent = s.prizes.length
    ? `Prizes: ${s.prizes.map(money).join(", ")}` : "";
  const places = [...s.places].sort((a, b) => a.place - b.place);
  $("t-places").replaceChildren(...places.slice(0, 40).map((p) => el("tr",
    { "data-entry": p.entry },
    el("td", {}, p.place === p.place_to ? String(p.place) : `${p.place}–${p.place_to}`),
    el("td", {}, p.player), el("td", {}, p.prize ? money(p.prize) : "—"))));
}

async function refresh() {
  try {
    const s = await api("/director/tournament");
    $("t-none").hidden = true;
    $("t-error").textContent = "";
    render(s);
  } catch (err) {
    if (err.status === 404) { $("t-none").hidden = false; return; }
    if (err.status === 401) { signOut("That token is not recognised."); return; }
    $("t-error").textContent = err.message;
  }
}

async function act(button, path, body, done) {
  if (t.busy) return;
  t.busy = true;
  button.setAttribute("aria-busy", "true");
  button.disabled = true;
  try {
    const s = await api(path, { method: "POST", body: JSON.stringify(body) });
    note(done(s));
    render(s);
  } catch (err) {
    note(`Refused: ${err.message}`);
  } finally {
    t.busy = false;
    button.removeAttribute("aria-busy");
    button.disabled = false;
  }
}

async function signIn(token) {
  t.token = token;
  try {
    const who = await api("/director/whoami");
    t.role = who.role;
  } catch (err) {
    t.token = null;
    $("t-sign-in-error").textContent = err.status === 401
      ? "That token is not recognised. Check it, or ask an admin for one." : err.message;
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  $("t-sign-in").hidden = true;
  $("t-board").hidden = false;
  $("t-who").hidden = false;
  $("t-who").textContent = `Signed in as ${t.role}`;
  await refresh();
  t.timer = setInterval(refresh, 1000);
}

function signOut(reason) {
  clearInterval(t.timer);
  Object.assign(t, { token: null, role: null, timer: null });
  sessionStorage.removeItem(TOKEN_KEY);
  $("t-board").hidden = true;
  $("t-sign-in").hidden = false;
  $("t-sign-in-error").textContent = reason || "";
}

document.addEventListener("DOMContentLoaded", () => {
  $("t-sign-in-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const token = $("t-token").value.trim();
    if (token) signIn(token);
  });
  $("t-register-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const player = $("t-player").value.trim();
    act(e.submitter, "/director/tournament/players", { player },
      () => `Registered ${player}.`);
    $("t-player").value = "";
  });
  $("t-start").addEventListener("click", (e) => act(e.currentTarget,
    "/director/tournament/start", {}, () => "Seats drawn; the players are seated."));
  $("t-confirm").addEventListener("click", (e) => act(e.currentTarget,
    "/director/tournament/balancing", { version: t.status ? t.status.version : null },
    () => "Moves carried out."));
  const saved = sessionStorage.getItem(TOKEN_KEY);
  if (saved) signIn(saved);
});
