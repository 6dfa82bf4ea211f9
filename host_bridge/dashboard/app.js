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
//
// A table's card is its last read over REST (the store: the truth) with what the feed has
// said since folded on top, in seq order: each change event as the store applies it
// (FOLDS, as host_bridge/floor_model.py does) and the table's newest "state" item (the
// hand in play, the level, the stakes). A change shows in the next animation frame, with
// no read. The read that follows the feed's "stored" items is the reconciliation: one per
// burst of them, paced page-wide (reconcileSoon); every read is at most one in flight per
// table (one more asked meanwhile runs after it), READS_AT_ONCE per page; an answer older
// than what the feed already showed gets the changes it lacks folded on top (by seq).
"use strict";

const TOKEN_KEY = "pitboss.token";
const TICK_MS = 1000;
const READS_AT_ONCE = 4; // table reads in flight at once, page-wide
const SETTLE_MS = 300;   // the read after a "stored" item waits until none came for this long
const SETTLE_MAX_MS = 2000; // ... or this long after the first one
const RECONCILE_GAP_MS = 200; // such reads start this far apart at least, page-wide
const AHEAD_LIMIT = 200; // feed changes kept per table for a read that does not have them

const state = {
  token: null,
  role: null,
  broker: null,
  tables: new Map(),   // id -> the table's card: its read, with the feed's changes since
  basis: new Map(),    // id -> {read, ahead, lost, seq}: what the card is built from
  reported: new Map(), // id -> {seq, fields, handNo} of the table's latest feed "state"
  happened: new Map(), // id -> the latest action or board of the hand in play (feed events)
  recent: new Map(),   // id -> [{at, text}] the table's latest events, newest first
  shot: new Map(),     // id -> the table's last shot_clock report in this hand
  handSeats: new Map(), // id -> {handNo, seats}: the hand in play's seats, by position
  selected: null,
  armed: null,         // "table what" of a command waiting for its "Yes"
  socket: null,
  retry: 0,
  listing: false,      // the whole floor is being read (GET /tables)
  pending: new Set(),    // commands sent and not answered yet, as "table command-json"
  ticker: null,
};

// The table reads asked for: waiting (in order), running, asked again while running, those
// waiting for more "stored" items ({first, timer} each) and those due then, in turn (one
// each RECONCILE_GAP_MS: `pacer`).
const reads = { wanted: new Set(), running: new Set(), again: new Set(), soon: new Map(),
  due: new Set(), pacer: null };

// What the next animation frame renders: every part, or only what changed.
const dirty = { all: true, tables: new Set(), detail: false, alerts: false, strip: false,
  queued: false };

// ------------------------------------------------------------------ the feed, folded
// What a change event does to a table's card, as the store applies it
// (host_bridge/floor_model.py's apply_event); false: the page cannot tell, the store is
// read. Each sets values (a new array or object, never one changed in place), so folding
// the same events again on a newer read gives the same card.
function withSeat(table, seat, change) {
  const now = change(table.seats.find((s) => s.seat === seat));
  const rest = table.seats.filter((s) => s.seat !== seat);
  table.seats = now ? [...rest, now].sort((a, b) => a.seat - b.seat) : rest;
}

const stackOf = (stack) => (s) => s && { ...s, stack };
const unseat = (t, e) => withSeat(t, e.seat, () => null);
const setLevel = (t, e) => { t.level = e.level; };
const endHand = (t, e) => { // its end stacks, by position in the hand's seats
  const started = state.handSeats.get(t.id);
  const seats = started && started.handNo === e.hand_no ? started.seats
    : t.hand && t.hand_no === e.hand_no ? t.hand.players.map((p) => p.seat) : null;
  Object.assign(t, { hand_in_progress: false, clock_on_seat: null, hand: null });
  if (!seats || seats.length !== e.stacks.length) return false;
  seats.forEach((seat, i) => withSeat(t, seat, stackOf(e.stacks[i])));
  return true;
};

const FOLDS = {
  "stack_adjusted": (t, e) => { for (const a of e.seats) withSeat(t, a.seat, stackOf(a.after)); },
  "player_seated": (t, e) => withSeat(t, e.seat, () => ({ seat: e.seat, player: e.player,
    stack: e.stack })),
  "player_removed": unseat,
  "player_moved": unseat,
  "player_busted": unseat,
  "hand_started": (t, e) => {
    state.handSeats.set(t.id, { handNo: e.hand_no, seats: e.seats });
    Object.assign(t, { hand_no: e.hand_no, hand_in_progress: true });
  },
  "hand_ended": endHand,
  "hand_voided": endHand,
  "misdeal": endHand,
  "paused": (t) => { t.paused = true; },
  "resumed": (t) => { t.paused = false; },
  "level_set": setLevel,
  "clock_synced": setLevel,
  "break_started": setLevel,
  "break_ended": setLevel,
  "clock_called": (t, e) => { t.clock_on_seat = e.seat; },
  "hand_for_hand_set": (t, e) => { t.hand_for_hand = e.on; },
  "colour_up_scheduled": (t, e) => { t.colour_up_at_level = e.level; },
  "table_closed": (t) => { t.closed = true; },
  "house_set": (t, e) => { t.house = e.house; },
};

// The fields of a feed "state" item (host_bridge/ingest_parts.py STATE_FIELDS) a card
// takes: the engine's view of the hand in play, the level, the stakes.
function takeState(table, report) {
  Object.assign(table, report.fields);
}

// What a table's card is built from: its latest read, the feed's change events since
// (`ahead`, in seq order; `lost`: the newest one let go, over AHEAD_LIMIT) and the newest
// seq of the two (`seq`; a "state" item's is kept with it).
function basisOf(id) {
  let basis = state.basis.get(id);
  if (!basis) {
    basis = { read: null, ahead: [], lost: 0, seq: 0 };
    state.basis.set(id, basis);
  }
  return basis;
}

// A table's card: its read, then the feed's changes the read did not have and its newest
// state (if the read does not have that either), in seq order.
function buildCard(basis) {
  const card = { ...basis.read };
  const report = state.reported.get(card.id);
  let due = report && report.seq >= card.acked_seq ? report : null;
  basis.seq = card.acked_seq;
  for (const { seq, event } of basis.ahead) {
    if (due && due.seq < seq) { takeState(card, due); due = null; }
    FOLDS[event.kind](card, event);
    basis.seq = seq;
  }
  if (due) takeState(card, due);
  return card;
}

// A table read over REST (alone, or in the whole floor's list). False: it is older than
// what the card is built from already, and is left.
function adopt(read) {
  read.seat_nodes_offline = (read.reported && read.reported.seat_nodes_offline) || [];
  delete read.reported; // the fields the page uses are copied above; the rest is heavy
  const basis = basisOf(read.id);
  if (basis.read && (read.acked_seq < basis.read.acked_seq || read.acked_seq < basis.lost)) {
    return false; // an older read, or one the changes kept since cannot bring up to date
  }
  basis.read = read;
  basis.ahead = basis.ahead.filter((x) => x.seq > read.acked_seq); // the store has the rest
  state.tables.set(read.id, buildCard(basis));
  touchTable(read.id);
  return true;
}

// A change event from the feed, on the card at once (the store has it a little later).
function takeChange(item) {
  const basis = basisOf(item.table);
  if (item.seq <= basis.seq && basis.read) return; // the card has it (a read was newer)
  basis.ahead.push({ seq: item.seq, event: item.event });
  if (basis.ahead.length > AHEAD_LIMIT) basis.lost = basis.ahead.shift().seq;
  const card = state.tables.get(item.table);
  if (!card) { if (!state.listing) refreshTable(item.table); return; }
  basis.seq = item.seq;
  if (FOLDS[item.event.kind](card, item.event) === false) refreshTable(item.table);
}

// A table's new public state from the feed: the hand in play, the level, the stakes.
function takeReport(item) {
  const last = state.reported.get(item.table);
  if (last && item.seq < last.seq) return; // an older state than the one shown
  const fields = { ...item.state, seat_nodes_offline: item.state.seat_nodes_offline || [] };
  state.reported.set(item.table, { seq: item.seq, fields, handNo: item.state.hand_no });
  const basis = basisOf(item.table);
  const card = state.tables.get(item.table);
  if (!card || !basis.read) { if (!state.listing) refreshTable(item.table); return; }
  if (item.seq < basis.read.acked_seq) return; // the read is newer than this state
  if (item.seq >= basis.seq) takeState(card, { fields });
  else if (basis.lost <= basis.read.acked_seq) {
    state.tables.set(item.table, buildCard(basis)); // under the changes that came after it
  } else return; // the changes after it are not all kept: the next state
  touchTable(item.table);
}

// A table's status (online, offline, unknown): on its card and on the read it is built from.
function setOnline(id, online) {
  const card = state.tables.get(id);
  const basis = state.basis.get(id);
  if (basis && basis.read) basis.read.online = online;
  if (card) { card.online = online; touchTable(id); }
}

// ------------------------------------------------------------------ loading
async function loadTables() {
  state.listing = true;
  try {
    takeTables(await api("/tables"));
  } finally {
    state.listing = false;
  }
  for (const [id, basis] of state.basis) if (!basis.read) refreshTable(id); // new since
}

function takeTables(body) {
  state.broker = body.broker || null;
  const cards = state.tables;
  state.tables = new Map();
  for (const t of body.data) {
    if (!adopt(t) && cards.has(t.id)) state.tables.set(t.id, cards.get(t.id));
  }
  scheduleRender();
}

// One table read again now (a command's answer, a change the page cannot fold, a table it
// does not know); a read asked for while one runs runs once more after it.
function refreshTable(tableId) {
  const soon = reads.soon.get(tableId);
  if (soon) { clearTimeout(soon.timer); reads.soon.delete(tableId); }
  reads.due.delete(tableId);
  if (reads.running.has(tableId)) reads.again.add(tableId);
  else { reads.wanted.add(tableId); pumpReads(); }
}

// The store has applied the table's events up to `seq`: read it again to check the card
// (it shows them already), once no "stored" item came for SETTLE_MS (SETTLE_MAX_MS after
// the first at the latest), so a burst of them is one read; and in turn with the other
// tables' such reads, RECONCILE_GAP_MS apart, so that 200 busy tables do not keep the
// bridge answering reads (which would hold up the feed itself).
function reconcileSoon(tableId, seq = Infinity) {
  const basis = state.basis.get(tableId);
  if (!basis || !basis.read) { if (!state.listing) refreshTable(tableId); return; }
  if (seq <= basis.read.acked_seq || reads.wanted.has(tableId) || reads.due.has(tableId)) {
    return; // read since, or a read is coming
  }
  const now = performance.now();
  const soon = reads.soon.get(tableId) || { first: now, timer: null };
  clearTimeout(soon.timer);
  soon.timer = setTimeout(() => {
    reads.soon.delete(tableId);
    reads.due.add(tableId);
    paceReads();
  }, Math.max(0, Math.min(SETTLE_MS, soon.first + SETTLE_MAX_MS - now)));
  reads.soon.set(tableId, soon);
}

function paceReads() {
  if (reads.pacer !== null || !reads.due.size) return;
  refreshTable(reads.due.values().next().value);
  reads.pacer = setTimeout(() => { reads.pacer = null; paceReads(); }, RECONCILE_GAP_MS);
}

function pumpReads() {
  while (reads.running.size < READS_AT_ONCE && reads.wanted.size) {
    const id = reads.wanted.values().next().value;
    reads.wanted.delete(id);
    reads.running.add(id);
    readTable(id).finally(() => {
      reads.running.delete(id);
      if (reads.again.delete(id)) reads.wanted.add(id);
      pumpReads();
    });
  }
}

async function readTable(id) {
  const token = state.token;
  let read;
  try {
    read = await api(`/tables/${encodeURIComponent(id)}`);
  } catch (err) {
    if (err.status === 401 && state.token === token) signOut(err.message);
    return; // unknown yet (404) or unreachable: the next "stored" item or command asks again
  }
  if (state.token === token) adopt(read);
}

function forgetReads() {
  for (const soon of reads.soon.values()) clearTimeout(soon.timer);
  for (const key of ["wanted", "again", "soon", "due"]) reads[key].clear();
  clearTimeout(reads.pacer);
  reads.pacer = null;
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
  if (FOLDS[kind]) takeChange(item); // on the card in the next frame
  else if (!state.tables.has(item.table) && !state.listing) refreshTable(item.table);
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
      if (!item.connected) for (const id of state.tables.keys()) setOnline(id, null);
      scheduleRender();
      break;
    }
    case "status": setOnline(item.table, item.online); reconcileSoon(item.table); break;
    case "conflict": refreshTable(item.table); break; // its conflicts count: on its card
    case "hand_ended": loadRake(); break; // rake.js: today's ledger has one more hand
    // the store has the table's events up to item.seq (the card showed them on arrival)
    case "stored": reconcileSoon(item.table, item.seq); break;
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
  takeTables(body); // the floor at once; the feed's hello reads it again
  clearInterval(state.ticker);
  state.ticker = setInterval(tick, TICK_MS);
  connectFeed();
}

function signOut(reason) {
  const socket = state.socket;
  Object.assign(state, { token: null, role: null, socket: null, selected: null, armed: null });
  for (const key of ["tables", "basis", "reported", "happened", "recent", "shot",
    "handSeats"]) state[key].clear();
  forgetReads();
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
