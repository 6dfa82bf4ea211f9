// Pitboss floor dashboard: plain JavaScript, no build step.
// Reads /api/v1/tables, follows /api/v1/feed, posts /api/v1/tables/{id}/commands; the
// house and the rake ledger are house.js's and rake.js's (issue 18).
// The API enforces the roles; this page only hides what a role may not send.
// The hand in play (stage, board, pots, whose turn, the amount to call, the raise limits)
// is the table's rules engine's, from its public state (a table's `hand` over REST, then
// each feed "state" item): this page shows it and works out no betting rule of its own.
"use strict";

const API = "/api/v1";
const TOKEN_KEY = "pitboss.token";
const FLOOR_COMMANDS = new Set(["pause", "resume", "call_clock", "seat_player",
  "remove_player", "move_player", "set_house"]);
const COMMAND_ROLES = new Set(["floor", "director", "admin"]);
const SHORT_BY = 2; // a table this many players below the fullest one is short-handed
// the events that change what the table's row shows: its changes (one kind each, as in
// controller/events) and the hand's start and end
const REFRESHING_EVENTS = new Set(["hand_started", "hand_ended", "hand_voided",
  "paused", "resumed", "level_set", "clock_called", "hand_for_hand_set",
  "colour_up_scheduled", "player_seated", "player_removed", "player_moved", "table_closed",
  "sat_out", "came_back", "player_busted", "hand_released", "clock_synced", "break_started",
  "break_ended", "penalty_served", "house_set"]);

const state = {
  token: null,
  role: null,
  tables: new Map(),   // id -> TablePublic from the API (hand, stakes: the table's state)
  reported: new Map(), // id -> {at, seq, hand, stakes} of the table's latest feed "state"
  reports: 0,          // feed "state" items taken (a read started before one keeps it)
  happened: new Map(), // id -> the latest action or board of the hand in play (feed events)
  selected: null,
  socket: null,
  retry: 0,
  renderQueued: false,
  refreshing: new Map(), // id -> {running, again}
  pending: new Set(),    // commands sent and not answered yet, as "table command-json"
};

const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------------ DOM helper
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// Re-rendering builds fresh nodes; patch() carries over only what differs, so a button
// under the pointer stays the same element while the table it belongs to is busy (a click
// on a button replaced between mousedown and mouseup would be lost). Buttons carry their
// command in data attributes and one delegated listener reads them.
function patchChildren(parent, fresh) {
  const old = [...parent.childNodes];
  fresh.forEach((node, i) => {
    if (i < old.length) patchNode(old[i], node);
    else parent.append(node);
  });
  for (let i = fresh.length; i < old.length; i += 1) old[i].remove();
}

function patchNode(cur, node) {
  if (cur.isEqualNode(node)) return;
  if (cur.nodeName !== node.nodeName || (cur.nodeType !== 1 && cur.nodeType !== 3)) {
    cur.replaceWith(node);
    return;
  }
  if (cur.nodeType === 3) {
    cur.textContent = node.textContent;
    return;
  }
  for (const a of [...cur.attributes]) if (!node.hasAttribute(a.name)) cur.removeAttribute(a.name);
  for (const a of node.attributes) {
    if (cur.getAttribute(a.name) !== a.value) cur.setAttribute(a.name, a.value);
  }
  patchChildren(cur, [...node.childNodes]);
}

const chips = (n) => (n === null || n === undefined ? "–" : Number(n).toLocaleString("en-US"));
const MOVES = { fold: "folds", check: "checks", call: "calls", bet_raise: "bets or raises",
  show: "shows", muck: "mucks", kill: "hand killed" };

// ------------------------------------------------------------------ roles
function canSend(name) {
  if (!COMMAND_ROLES.has(state.role)) return false;
  return state.role !== "floor" || FLOOR_COMMANDS.has(name);
}

// ------------------------------------------------------------------ HTTP
class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

async function api(path, options = {}) {
  const headers = { Authorization: `Bearer ${state.token}`, ...(options.headers || {}) };
  let response;
  try {
    response = await fetch(API + path, { ...options, headers });
  } catch (err) {
    throw new ApiError(0, `the bridge cannot be reached (${err.message}); check the network`);
  }
  let body = null;
  try { body = await response.json(); } catch { body = null; }
  if (!response.ok) {
    const detail = body && (body.message || (typeof body.detail === "string" ? body.detail : null));
    const fallback = response.status >= 500
      ? `the bridge failed (HTTP ${response.status}); check the table's state before `
        + "trying again, and tell the bridge's admin"
      : `HTTP ${response.status}`;
    throw new ApiError(response.status, detail || fallback);
  }
  return body;
}

// ------------------------------------------------------------------ loading
async function loadTables() {
  const since = state.reports;
  const body = await api("/tables");
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
  if (report && report.at > since) {
    Object.assign(table, { hand: report.hand, stakes: report.stakes,
      seat_nodes_offline: report.nodesOffline });
  }
  state.tables.set(table.id, table);
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
  }
  else refreshTable(item.table);
  scheduleRender();
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
        scheduleRender();
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

function onFeed(item) {
  if (item.type === "hello") {
    state.role = item.role;
    state.retry = 0;
    setLink("Live", "live");
    const who = $("who");
    who.textContent = `Signed in as ${item.role}`;
    who.hidden = false;
    loadTables().catch((err) => setLink(`Could not load the tables: ${err.message}`, "down"));
    if (COMMAND_ROLES.has(state.role)) { loadHouses(); loadRake(); } // house.js, rake.js
    scheduleRender();
  } else if (item.type === "broker") {
    // the bridge's own broker connection: while it is down no table's state is known;
    // once it is back, each table is known again as its status item arrives
    state.broker = { connected: item.connected,
      lost_at: item.since ? new Date(item.since * 1000).toISOString() : null };
    if (!item.connected) for (const t of state.tables.values()) t.online = null;
    scheduleRender();
  } else if (item.type === "status") {
    const table = state.tables.get(item.table);
    if (table) { table.online = item.online; scheduleRender(); }
    refreshTable(item.table);
  } else if (item.type === "event") {
    noteHappening(item.table, item.event);
    noteSeatNode(item.table, item.event);
    if (REFRESHING_EVENTS.has(item.event.kind) || !state.tables.has(item.table)) {
      refreshTable(item.table);
    }
    scheduleRender();
  } else if (item.type === "state") {
    takeReport(item); // the table's public state: the engine's view of the hand in play
  } else if (item.type === "conflict") {
    refreshTable(item.table); // the table's conflicts count: an alert on its card
  } else if (item.type === "hand_ended") {
    loadRake(); // rake.js: today's ledger has one more hand
  } else if (item.type === "stored") {
    refreshTable(item.table); // events reach the feed before the store: reload once stored
  }
  // "dropped" is followed by a close, and the reconnection reloads everything
}

function setLink(text, kind) {
  const link = $("link");
  link.textContent = text;
  link.dataset.kind = kind;
}

// ------------------------------------------------------------------ rendering
function scheduleRender() {
  if (state.renderQueued) return;
  state.renderQueued = true;
  requestAnimationFrame(() => {
    state.renderQueued = false;
    render();
  });
}

function fullest() {
  let most = 0;
  for (const t of state.tables.values()) if (!t.closed) most = Math.max(most, t.seats.length);
  return most;
}

function shortBy(table, most) {
  if (table.closed) return 0;
  const gap = most - table.seats.length;
  return gap >= SHORT_BY ? gap : 0;
}

function badges(table, short) {
  const out = [];
  if (table.online === null) {
    out.push(h("span", { class: "badge unknown", title: "the bridge cannot hear the tables: "
      + "this table's state is not known until it reports again" }, "UNKNOWN"));
  } else if (!table.online) out.push(h("span", { class: "badge offline" }, "OFFLINE"));
  for (const seat of table.seat_nodes_offline || []) {
    out.push(h("span", { class: "badge node-offline", title: "the seat node is not answering: "
      + "its cards are not read; the dealer keys them in" }, `SEAT ${seat} NODE OFFLINE`));
  }
  if (table.conflicts) { // issue 17: a payload came for a seq that held another one
    out.push(h("span", { class: "badge conflict", title: "a payload arrived for a seq that "
      + "already held another one; the first stands, the other is kept for audit: GET "
      + `/api/v1/tables/${table.id}/conflicts` }, `SEQ CONFLICT ×${table.conflicts}`));
  }
  if (table.closed) out.push(h("span", { class: "badge closed" }, "CLOSED"));
  if (table.paused) out.push(h("span", { class: "badge paused" }, "PAUSED"));
  if (table.hand_for_hand) out.push(h("span", { class: "badge h4h" }, "HAND-FOR-HAND"));
  if (short) out.push(h("span", { class: "badge short" }, `SHORT −${short}`));
  if (table.colour_up_at_level) {
    out.push(h("span", { class: "badge colour" }, `COLOUR-UP AT L${table.colour_up_at_level}`));
  }
  return out;
}

// The hand panel with the state's seq and the latest action or board of the same hand.
function handOf(table) {
  const report = state.reported.get(table.id);
  const last = state.happened.get(table.id);
  const happened = last && table.hand && (!report || report.handNo === last.hand_no)
    ? happening(last, table.hand) : null;
  return handPanel(table, report ? report.seq : null, happened);
}

function facts(table) {
  const clock = table.paused ? "paused"
    : table.clock_on_seat ? `called on seat ${table.clock_on_seat}` : "running";
  const street = table.hand ? ` · ${table.hand.street}` : "";
  const rows = [
    ["Level", table.level],
    ["Blinds", stakesText(table.stakes)],
    ["Clock", clock],
    ["Hand", table.hand_in_progress ? `#${table.hand_no} in play${street}`
      : table.hand_no ? `#${table.hand_no} over` : "none yet"],
    ["Players", table.seats.length],
  ];
  return h("dl", { class: "facts" }, rows.map(([k, v]) => h("div", { class: "fact" },
    h("dt", {}, k), h("dd", { dataset: { fact: k.toLowerCase() } }, v))));
}

// An action (positions as in the events: the hand's players in order) or a board dealt.
function happening(ev, hand) {
  if (ev.kind === "board") return `${ev.street || "board"} ${ev.cards.map(cardText).join(" ")}`;
  const who = hand.players[ev.player] ? `Seat ${hand.players[ev.player].seat}`
    : `Player ${ev.player}`;
  if (ev.action === "bet_raise") return `${who} bets or raises to ${chips(ev.amount)}`;
  if (ev.action === "call") return `${who} calls ${chips(ev.amount)}`;
  return `${who} ${MOVES[ev.action] || ev.action}`;
}

function seatList(table) {
  if (table.seats.length === 0) return h("p", { class: "empty" }, "No players seated");
  return h("ol", { class: "seats", "aria-label": `Seats at table ${table.id}` },
    table.seats.map((s) => {
      const seat = seatInHand(table, s);
      return h("li", { class: `seat${seat.classes}`, dataset: { seat: s.seat } },
        h("span", { class: "seat-no" }, `Seat ${s.seat}`), seat.name,
        h("span", { class: "stack" }, chips(seat.stack)));
    }));
}

function render() {
  const grid = $("grid");
  const most = fullest();
  const tables = [...state.tables.values()].sort((a, b) => a.id.localeCompare(b.id,
    undefined, { numeric: true }));
  $("no-tables").hidden = tables.length > 0;
  patchChildren(grid, tables.map((t) => {
    const short = shortBy(t, most);
    const classes = ["table-card", t.online === null ? "unknown" : t.online ? "online"
      : "offline", short ? "short" : "",
      t.paused ? "paused" : "", t.closed ? "closed" : "",
      t.id === state.selected ? "selected" : ""].filter(Boolean).join(" ");
    return h("li", { class: classes, dataset: { table: t.id } },
      h("div", { class: "card-head" },
        h("h3", {}, h("button", {
          type: "button", class: "open", "aria-pressed": String(t.id === state.selected),
          dataset: { open: t.id },
        }, `Table ${t.id}`)),
        h("p", { class: "badges" }, badges(t, short))),
      houseLine(t), facts(t), handOf(t), seatList(t));
  }));
  renderBrokerLost();
  const online = tables.filter((t) => t.online).length;
  const players = tables.reduce((n, t) => n + t.seats.length, 0);
  $("summary").textContent = tables.length
    ? `${tables.length} tables · ${online} online · ${players} players` : "";
  renderDetail(most);
}

// The banner over the grid while the bridge has lost its broker (tables' states unknown).
function renderBrokerLost() {
  let banner = $("broker-lost");
  if (!banner) {
    banner = h("p", { id: "broker-lost", class: "broker-lost", role: "alert" });
    const grid = $("grid");
    grid.parentNode.insertBefore(banner, grid);
  }
  const lost = state.broker && !state.broker.connected;
  banner.hidden = !lost;
  if (!lost) return;
  const since = state.broker.lost_at ? new Date(state.broker.lost_at) : null;
  const hhmm = since ? since.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit",
    hour12: false }) : "now";
  banner.textContent = `The bridge has lost the broker: tables' states unknown since ${hhmm}`;
}

// ------------------------------------------------------------------ detail view
function select(tableId) {
  state.selected = state.selected === tableId ? null : tableId;
  if (state.selected) history.replaceState(null, "", `#table=${encodeURIComponent(tableId)}`);
  else history.replaceState(null, "", location.pathname);
  render();
  if (state.selected) $("detail-title").focus?.();
}

function commandButton(label, command, table, extra = {}) {
  if (!canSend(command.name)) return null;
  const json = JSON.stringify(command);
  return h("button", {
    type: "button", class: extra.danger ? "cmd danger" : "cmd",
    disabled: !table.online || state.pending.has(`${table.id} ${json}`),
    dataset: { command: json, table: table.id },
  }, label);
}

function renderDetail(most) {
  const table = state.selected ? state.tables.get(state.selected) : null;
  const detail = $("detail");
  detail.hidden = !table;
  document.body.classList.toggle("with-detail", Boolean(table));
  if (!table) return;
  const short = shortBy(table, most);
  $("detail-title").textContent = `Table ${table.id}`;
  $("detail-title").setAttribute("tabindex", "-1");

  const others = [...state.tables.values()].filter((t) => t.id !== table.id && !t.closed);
  const rows = table.seats.map((s) => {
    const actions = [];
    actions.push(commandButton("Call clock", { name: "call_clock", seat: s.seat }, table));
    actions.push(commandButton("Remove", { name: "remove_player", seat: s.seat }, table,
      { danger: true }));
    if (canSend("move_player") && others.length) {
      const id = `move-${s.seat}`;
      const choose = h("select", { id, class: "move-to", dataset: { seat: s.seat } },
        others.map((t) => h("option", { value: t.id }, t.id)));
      actions.push(h("span", { class: "move" },
        h("label", { for: id }, "to table"), choose,
        h("button", {
          type: "button", class: "cmd", disabled: !table.online,
          dataset: { move: s.seat, table: table.id },
        }, "Move")));
    }
    const seat = seatInHand(table, s);
    return h("tr", { class: seat.classes.trim(), dataset: { seat: s.seat } },
      h("th", { scope: "row" }, s.seat),
      h("td", {}, seat.name),
      h("td", { class: "num" }, chips(seat.stack)),
      COMMAND_ROLES.has(state.role) ? h("td", { class: "actions" }, actions) : null);
  });
  const seats = table.seats.length === 0 ? h("p", { class: "empty" }, "No players seated")
    : h("table", { class: "seat-table" },
      h("caption", {}, `Players at table ${table.id}`),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Seat"),
        h("th", { scope: "col" }, "Player"), h("th", { scope: "col", class: "num" }, "Stack"),
        COMMAND_ROLES.has(state.role) ? h("th", { scope: "col" }, "Commands") : null)),
      h("tbody", {}, rows));
  patchChildren($("detail-body"), [
    h("p", { class: "badges big" }, badges(table, short),
      table.online ? null : h("span", { class: "note" },
        "Commands cannot reach an offline table.")),
    houseLine(table), facts(table), handOf(table), seats].filter(Boolean));

  // the table's own commands
  const commands = $("commands");
  commands.hidden = !COMMAND_ROLES.has(state.role);
  if (commands.hidden) return;
  const closeArmed = $("table-commands").dataset.armed === table.id;
  patchChildren($("table-commands"), [
    table.paused ? commandButton("Resume", { name: "resume" }, table)
      : commandButton("Pause", { name: "pause" }, table),
    table.hand_for_hand
      ? commandButton("Stop hand-for-hand", { name: "hand_for_hand", on: false }, table)
      : commandButton("Start hand-for-hand", { name: "hand_for_hand", on: true }, table),
    canSend("close_table") ? (closeArmed
      ? commandButton(`Yes, close table ${table.id}`, { name: "close_table" }, table,
        { danger: true })
      : h("button", {
        type: "button", class: "cmd danger", disabled: !table.online,
        dataset: { arm: table.id },
      }, "Close table…")) : null,
  ].filter(Boolean));
  $("seat-form").hidden = !canSend("seat_player");
  $("director-form").hidden = !canSend("set_level");
  for (const el of document.querySelectorAll("#commands form button, #commands form input, "
    + "#commands form select")) el.disabled = !table.online;
  renderHouseForm(table); // house.js: the House control (issue 18)
  const free = [];
  const taken = new Set(table.seats.map((s) => s.seat));
  for (let seat = 1; seat <= 10; seat += 1) if (!taken.has(seat)) free.push(seat);
  const seatSelect = $("seat-seat");
  const keep = seatSelect.value;
  if (seatSelect.dataset.free !== free.join(",")) {
    seatSelect.replaceChildren(...free.map((n) => h("option", { value: n }, `Seat ${n}`)));
    seatSelect.dataset.free = free.join(",");
    if (free.includes(Number(keep))) seatSelect.value = keep;
  }
  if (!$("level").value) $("level").placeholder = String(table.level + 1);
}

// ------------------------------------------------------------------ commands
const describe = (c) => {
  const bits = Object.entries(c).filter(([k]) => k !== "name").map(([k, v]) => `${k} ${v}`);
  return bits.length ? `${c.name} (${bits.join(", ")})` : c.name;
};

function addReply(text, kind) {
  const time = new Date().toLocaleTimeString("en-GB");
  const item = h("li", { class: `reply ${kind}` }, h("time", {}, time), " ", text);
  $("replies").prepend(item);
  while ($("replies").children.length > 30) $("replies").lastChild.remove();
  return item;
}

async function send(tableId, command, button) {
  $("table-commands").dataset.armed = "";
  const what = describe(command);
  const key = `${tableId} ${JSON.stringify(command)}`;
  const pending = addReply(`Sending ${what} to table ${tableId}…`, "pending");
  state.pending.add(key);
  if (button) { button.disabled = true; button.setAttribute("aria-busy", "true"); }
  let text;
  let kind;
  try {
    const reply = await api(`/tables/${encodeURIComponent(tableId)}/commands`, {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ command }),
    });
    if (reply.status === "ok") {
      const data = reply.data ? Object.entries(reply.data).map(([k, v]) => `${k}: ${v}`)
        .join(", ") : "";
      text = `Table ${tableId} did ${what}${data ? ` — ${data}` : ""}`;
      kind = "ok";
    } else {
      text = `Table ${tableId} refused ${what}: ${reply.error || "no reason given"}`;
      kind = "error";
    }
  } catch (err) {
    text = err.status === 504 ? `No reply: ${err.message}` : `Not done: ${err.message}`;
    kind = "error";
    if (err.status === 401) signOut(err.message);
  }
  pending.className = `reply ${kind}`;
  pending.replaceChildren(h("time", {}, new Date().toLocaleTimeString("en-GB")), " ", text);
  state.pending.delete(key);
  if (button) { button.removeAttribute("aria-busy"); button.disabled = false; }
  refreshTable(tableId);
  scheduleRender();
}

function intField(id) {
  const el = $(id);
  if (!el.reportValidity() || el.value === "") { el.focus(); return null; }
  return Number(el.value);
}

// ------------------------------------------------------------------ sign in / out
async function signIn(token) {
  state.token = token;
  try {
    await api("/tables");
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
  connectFeed();
}

function signOut(reason) {
  const socket = state.socket;
  Object.assign(state, { token: null, role: null, socket: null, selected: null });
  state.tables.clear();
  state.reported.clear();
  state.happened.clear();
  if (socket) socket.close();
  sessionStorage.removeItem(TOKEN_KEY);
  $("board").hidden = true;
  $("sign-out").hidden = true;
  $("who").hidden = true;
  $("sign-in").hidden = false;
  $("sign-in-error").textContent = reason || "";
  $("replies").replaceChildren();
  forgetHouses();
  forgetRake();
  setLink("Not signed in", "none");
  $("token").focus();
}

function wire() {
  $("sign-in-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const token = $("token").value.trim();
    if (token) signIn(token);
  });
  $("sign-out").addEventListener("click", () => signOut(""));
  $("close-detail").addEventListener("click", () => select(state.selected));
  wireHouse();
  wireRake();
  $("seat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const stack = intField("seat-stack");
    const player = $("seat-player");
    if (stack === null || !player.reportValidity()) return;
    send(state.selected, { name: "seat_player", seat: Number($("seat-seat").value),
      player: player.value, stack }, e.submitter);
  });
  $("set-level").addEventListener("click", (e) => {
    const level = intField("level");
    if (level !== null) send(state.selected, { name: "set_level", level }, e.currentTarget);
  });
  $("colour-up").addEventListener("click", (e) => {
    const level = intField("colour-level");
    if (level !== null) {
      send(state.selected, { name: "colour_up", at_level: level }, e.currentTarget);
    }
  });
  document.addEventListener("click", (e) => {
    const button = e.target.closest("button");
    if (!button || button.disabled) return;
    const { open, command, table, move, arm } = button.dataset;
    if (open) select(open);
    else if (command) send(table, JSON.parse(command), button);
    else if (move) {
      const to = button.closest("tr").querySelector("select.move-to").value;
      send(table, { name: "move_player", seat: Number(move), to_table: to }, button);
    } else if (arm) {
      $("table-commands").dataset.armed = arm;
      render();
    }
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && state.selected) select(state.selected);
  });
  const saved = sessionStorage.getItem(TOKEN_KEY);
  if (saved) signIn(saved);
  else $("token").focus();
}

wire();
