// Pitboss floor page: plain JavaScript, no build step. This file holds the page's state,
// its reads (/api/v1/tables, then /api/v1/feed), the per-frame render and sign-in. The
// rest is in modules loaded before it (index.html): common.js (DOM, formats, API client),
// hand.js (the hand in play), house.js and rake.js (issue 18), alerts.js (the alert list),
// strip.js (the tournament strip, the floor summary), grid.js (the table cards) and
// detail.js (the table view and its commands).
// The API enforces the roles; this page only hides what a role may not send.
// The hand in play (stage, board, pots, whose turn, the amount to call, the raise limits)
// is the table's rules engine's, from its public state (a table's `hand` over REST, then
// each feed "state" item): this page shows it and works out no betting rule of its own.
"use strict";

const TOKEN_KEY = "pitboss.token";
const TICK_MS = 1000;
// the events that change what the table's card shows: its changes (one kind each, as in
// controller/events) and the hand's start and end; the card is read again over REST
const REFRESHING_EVENTS = new Set(["hand_started", "hand_ended", "hand_voided",
  "paused", "resumed", "level_set", "clock_called", "hand_for_hand_set",
  "colour_up_scheduled", "player_seated", "player_removed", "player_moved", "table_closed",
  "sat_out", "came_back", "player_busted", "hand_released", "clock_synced", "break_started",
  "break_ended", "penalty_served", "house_set"]);

const state = {
  token: null,
  role: null,
  broker: null,
  tables: new Map(),   // id -> TablePublic from the API (hand, stakes: the table's state)
  reported: new Map(), // id -> {at, seq, hand, stakes} of the table's latest feed "state"
  reports: 0,          // feed "state" items taken (a read started before one keeps it)
  happened: new Map(), // id -> the latest action or board of the hand in play (feed events)
  recent: new Map(),   // id -> [{at, text}] the table's latest events, newest first
  shot: new Map(),     // id -> the table's last shot_clock report in this hand
  selected: null,
  armed: null,         // "table what" of a command waiting for its "Yes"
  socket: null,
  retry: 0,
  refreshing: new Map(), // id -> {again}
  pending: new Set(),    // commands sent and not answered yet, as "table command-json"
  ticker: null,
};

// What the next animation frame renders: every part, or only what changed.
const dirty = { all: true, tables: new Set(), detail: false, alerts: false, strip: false,
  queued: false };

// ------------------------------------------------------------------ loading
async function loadTables() {
  const since = state.reports;
  takeTables(await api("/tables"), since);
}

function takeTables(body, since) {
  state.broker = body.broker || null;
  state.tables = new Map();
  for (const t of body.data) adopt(t, since);
  scheduleRender();
}

// A table read over REST carries the state the bridge stored; a feed "state" item that
// arrived while it was being read is newer, so it wins.
function adopt(table, since) {
  const report = state.reported.get(table.id);
  table.seat_nodes_offline = (table.reported && table.reported.seat_nodes_offline) || [];
  delete table.reported; // the fields the page uses are copied above; the rest is heavy
  if (report && report.at > since) {
    Object.assign(table, { hand: report.hand, stakes: report.stakes,
      seat_nodes_offline: report.nodesOffline });
  }
  state.tables.set(table.id, table);
  touchTable(table.id);
}

function takeReport(item) {
  const last = state.reported.get(item.table);
  if (last && item.seq < last.seq) return; // an older state than the one shown
  state.reports += 1;
  const report = { at: state.reports, seq: item.seq, hand: item.state.hand,
    stakes: item.state.stakes, handNo: item.state.hand_no,
    nodesOffline: item.state.seat_nodes_offline || [] };
  state.reported.set(item.table, report);
  const table = state.tables.get(item.table);
  if (table) {
    Object.assign(table, { hand: report.hand, stakes: report.stakes,
      seat_nodes_offline: report.nodesOffline });
    touchTable(item.table);
  } else refreshTable(item.table);
}

// The latest thing that happened in the hand in play, to show beside whose turn it is.
function noteHappening(tableId, ev) {
  if (ev.kind === "hand_started" || ev.kind === "hand_ended" || ev.kind === "hand_voided") {
    state.happened.delete(tableId);
  } else if (ev.kind === "action" || ev.kind === "board") {
    state.happened.set(tableId, ev);
  }
}

// A seat node lost or back (controller/events/nodes.py): shown at once from the feed; the
// table's next state (its seat_nodes_offline) confirms it.
function noteSeatNode(tableId, ev) {
  const table = state.tables.get(tableId);
  if (!table) return;
  const down = new Set(table.seat_nodes_offline || []);
  if (ev.kind === "irregularity" && ev.what === "seat_node_offline" && ev.seat) down.add(ev.seat);
  else if (ev.kind === "seat_node_back") down.delete(ev.seat);
  else return;
  table.seat_nodes_offline = [...down].sort((a, b) => a - b);
}

// One table read again; a read asked for while one runs runs once more after it.
function refreshTable(tableId) {
  const job = state.refreshing.get(tableId);
  if (job) { job.again = true; return; }
  const run = { again: false };
  state.refreshing.set(tableId, run);
  (async () => {
    do {
      run.again = false;
      try {
        const since = state.reports;
        adopt(await api(`/tables/${encodeURIComponent(tableId)}`), since);
      } catch (err) {
        if (err.status === 401) { signOut(err.message); return; }
      }
    } while (run.again);
    state.refreshing.delete(tableId);
  })();
}

// ------------------------------------------------------------------ feed
function connectFeed() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}${API}/feed`);
  state.socket = socket;
  setLink("Connecting…", "connecting");
  socket.addEventListener("open", () => socket.send(JSON.stringify({ token: state.token })));
  socket.addEventListener("message", (message) => {
    let item;
    try { item = JSON.parse(message.data); } catch { return; }
    onFeed(item);
  });
  socket.addEventListener("close", (closed) => {
    if (state.socket !== socket) return; // replaced or signed out
    state.socket = null;
    if (closed.code === 4401 || closed.code === 4403) {
      signOut(closed.reason || "the bridge refused this token");
      return;
    }
    state.retry = Math.min(state.retry + 1, 5);
    setLink("Connection lost; reconnecting…", "down");
    setTimeout(() => { if (state.token && !state.socket) connectFeed(); }, 1000 * state.retry);
  });
}

function onHello(item) {
  state.role = item.role;
  state.retry = 0;
  setLink("Live", "live");
  const who = $("who");
  who.textContent = `Signed in as ${item.role}`;
  who.hidden = false;
  loadTables().catch((err) => setLink(`Could not load the tables: ${err.message}`, "down"));
  loadAlerts(); // alerts.js
  startSummary(); // strip.js
  if (COMMAND_ROLES.has(state.role)) { loadHouses(); loadRake(); } // house.js, rake.js
  scheduleRender();
}

function onEvent(item) {
  const kind = item.event.kind;
  noteHappening(item.table, item.event);
  noteSeatNode(item.table, item.event);
  noteRecent(item.table, item.event); // detail.js
  if (REFRESHING_EVENTS.has(kind) || !state.tables.has(item.table)) refreshTable(item.table);
  if (SUMMARY_EVENTS.has(kind)) summarySoon(); // strip.js
  touchTable(item.table);
}

function onFeed(item) {
  switch (item.type) {
    case "hello": onHello(item); break;
    case "event": onEvent(item); break;
    case "state": takeReport(item); break; // the engine's view of the hand in play
    case "alert": case "alert_cleared": takeAlertItem(item); break; // alerts.js
    case "broker": {
      // the bridge's own broker connection: while it is down no table's state is known;
      // once it is back, each table is known again as its status item arrives
      state.broker = { connected: item.connected,
        lost_at: item.since ? new Date(item.since * 1000).toISOString() : null };
      if (!item.connected) for (const t of state.tables.values()) t.online = null;
      scheduleRender();
      break;
    }
    case "status": {
      const table = state.tables.get(item.table);
      if (table) { table.online = item.online; touchTable(item.table); }
      refreshTable(item.table);
      break;
    }
    case "conflict": refreshTable(item.table); break; // its conflicts count: on its card
    case "hand_ended": loadRake(); break; // rake.js: today's ledger has one more hand
    case "stored": refreshTable(item.table); break; // events reach the feed before the store
    default: break; // "dropped" is followed by a close; the reconnection reloads all
  }
}

function setLink(text, kind) {
  const link = $("link");
  link.textContent = text;
  link.dataset.kind = kind;
}

// ------------------------------------------------------------------ rendering
function queueFrame() {
  if (dirty.queued) return;
  dirty.queued = true;
  requestAnimationFrame(render);
}

function scheduleRender() { dirty.all = true; queueFrame(); }

function touchTable(id) {
  if (id === null || id === undefined) return;
  dirty.tables.add(id);
  if (id === state.selected) dirty.detail = true;
  queueFrame();
}

function touchDetail() { dirty.detail = true; queueFrame(); }

function touchStrip() { dirty.strip = true; queueFrame(); }

function touchAlerts(tables) {
  dirty.alerts = true;
  for (const id of tables) touchTable(id);
  queueFrame();
}

function summaryChanged(tables) {
  dirty.strip = true;
  for (const id of tables) touchTable(id);
  if (tables.length) dirty.detail = true; // sizes and levels in force
  queueFrame();
}

// One frame's render: only what changed since the last one.
function render() {
  const job = { ...dirty, tables: dirty.tables };
  Object.assign(dirty, { all: false, tables: new Set(), detail: false, alerts: false,
    strip: false, queued: false });
  if (!state.token) return;
  renderGrid(job.all ? null : job.tables);
  if (job.all || job.alerts) renderAlerts();
  if (job.all || job.strip) renderStrip();
  if (job.all || job.detail) renderDetail();
  renderBrokerLost();
  renderSummaryLine();
}

function renderSummaryLine() {
  let online = 0;
  let players = 0;
  let closed = 0;
  for (const t of state.tables.values()) {
    if (t.online) online += 1;
    if (t.closed) closed += 1;
    players += t.seats.length;
  }
  const n = state.tables.size;
  $("summary").textContent = n ? `${n} tables · ${online} online · ${players} players`
    + `${closed ? ` · ${closed} closed` : ""}` : "";
}

// The banner over the grid while the bridge has lost its broker (tables' states unknown).
function renderBrokerLost() {
  const banner = $("broker-lost");
  const lost = state.broker && !state.broker.connected;
  banner.hidden = !lost;
  if (!lost) return;
  const since = state.broker.lost_at ? new Date(state.broker.lost_at) : null;
  const hhmm = since ? since.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit",
    hour12: false }) : "now";
  banner.textContent = `The bridge has lost the broker: tables' states unknown since ${hhmm}`;
}

// Once a second: relative times and countdowns (text only); a level that ran out asks the
// bridge for the next one.
function tick() {
  tickTimes(); // alerts.js
  const now = serverNow();
  for (const el of document.querySelectorAll('#strip [data-ends]')) {
    if (Number(el.dataset.ends) <= now && el.dataset.asked !== "1") {
      el.dataset.asked = "1";
      summarySoon();
    }
  }
}

// ------------------------------------------------------------------ sign in / out
async function signIn(token) {
  state.token = token;
  let body;
  try {
    body = await api("/tables");
  } catch (err) {
    state.token = null;
    sessionStorage.removeItem(TOKEN_KEY);
    $("sign-in-error").textContent = err.status === 401
      ? "That token is not recognised. Check it, or ask an admin for one."
      : err.message;
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  $("sign-in-error").textContent = "";
  $("token").value = "";
  $("sign-in").hidden = true;
  $("board").hidden = false;
  $("sign-out").hidden = false;
  const wanted = new URLSearchParams(location.hash.slice(1)).get("table");
  if (wanted) state.selected = wanted;
  takeTables(body, state.reports); // the floor at once; the feed's hello reads it again
  clearInterval(state.ticker);
  state.ticker = setInterval(tick, TICK_MS);
  connectFeed();
}

function signOut(reason) {
  const socket = state.socket;
  Object.assign(state, { token: null, role: null, socket: null, selected: null, armed: null });
  for (const key of ["tables", "reported", "happened", "recent", "shot"]) state[key].clear();
  clearInterval(state.ticker);
  if (socket) socket.close();
  sessionStorage.removeItem(TOKEN_KEY);
  $("board").hidden = true;
  $("sign-out").hidden = true;
  $("who").hidden = true;
  $("sign-in").hidden = false;
  $("sign-in-error").textContent = reason || "";
  $("replies").replaceChildren();
  document.body.classList.remove("with-detail");
  forgetHouses();
  forgetRake();
  forgetAlerts();
  forgetSummary();
  forgetGrid();
  setLink("Not signed in", "none");
  $("token").focus();
}

function onClick(e) {
  const button = e.target.closest("button");
  if (!button || button.disabled) return;
  const { open, show, ack } = button.dataset;
  if (open) select(open);
  else if (show) showTable(show);
  else if (ack) acknowledge(ack);
  else onCommandClick(button); // detail.js
}

function onKey(e) {
  if (e.key !== "Escape") return;
  if (state.armed) { state.armed = null; touchDetail(); } else if (state.selected) {
    select(state.selected);
  }
}

function wire() {
  $("sign-in-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const token = $("token").value.trim();
    if (token) signIn(token);
  });
  $("sign-out").addEventListener("click", () => signOut(""));
  wireGrid();
  wireDetail();
  wireHouse();
  wireRake();
  document.addEventListener("click", onClick);
  document.addEventListener("keydown", onKey);
  const saved = sessionStorage.getItem(TOKEN_KEY);
  if (saved) signIn(saved);
  else $("token").focus();
}

wire();
