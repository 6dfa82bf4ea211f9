// Pitboss floor page: the table view. The hand in progress as the table's engine reports
// it (hand.js: whose turn, the amount to call, the raise limits, the board, the pots; the
// shot clock from the table's clock call and its shot_clock reports), the seats, the
// table's recent events (from the feed, since the page opened) and its commands. A
// command where a mistake costs (remove a player, move one, close the table) asks first:
// its button arms a "Yes, ..." button and a Cancel, and only the "Yes" sends. The seat box
// offers the free seats of the table's size (the summary's), not ten. Hand-for-hand is
// floor-wide: the director page holds its switch; this view only says whether it is on.
"use strict";

const FLOOR_COMMANDS = new Set(["pause", "resume", "call_clock", "seat_player",
  "remove_player", "move_player", "set_house"]);
const COMMAND_ROLES = new Set(["floor", "director", "admin"]);
const RECENT = 12; // events kept per table for its view

function canSend(name) {
  if (!COMMAND_ROLES.has(state.role)) return false;
  return state.role !== "floor" || FLOOR_COMMANDS.has(name);
}

// ------------------------------------------------------------------ recent events
const EVENT_TEXT = {
  hand_started: (e) => `Hand #${e.hand_no} started`,
  hand_ended: (e) => `Hand #${e.hand_no} ended`,
  hand_voided: (e) => `Hand #${e.hand_no} void`,
  paused: () => "Paused", resumed: () => "Resumed",
  level_set: (e) => `Level ${e.level}`,
  clock_called: (e) => `Clock called on seat ${e.seat}`,
  player_seated: (e) => `${e.player} seated at seat ${e.seat} (${chips(e.stack)})`,
  player_removed: (e) => `Seat ${e.seat} removed${e.player ? ` (${e.player})` : ""}`,
  player_moved: (e) => `Seat ${e.seat} moved to table ${e.to_table}`,
  player_busted: (e) => `${e.player || `Seat ${e.seat}`} busted`,
  break_started: () => "Break started", break_ended: () => "Break over",
  table_closed: () => "Table closed",
  hand_for_hand_set: (e) => `Hand-for-hand ${e.on ? "on" : "off"}`,
  colour_up_scheduled: (e) => `Colour-up at level ${e.level}`,
  shot_clock: (e) => shotText(e),
  irregularity: (e) => `Irregularity: ${(e.what || "").replace(/_/g, " ")}`,
};

function shotText(e) {
  if (e.what === "extension") {
    const left = e.chips_left === null || e.chips_left === undefined ? ""
      : `, ${e.chips_left} chip${e.chips_left === 1 ? "" : "s"} left`;
    return `Seat ${e.seat} used a time bank (+${e.seconds} s${left})`;
  }
  return `Time ran out on seat ${e.seat}: ${e.ruling || "ruled"}${e.rule ? ` (${e.rule})` : ""}`;
}

// Keep a line about a table's event for its view (the hand's own steps: actions, boards).
function noteRecent(tableId, ev) {
  const table = state.tables.get(tableId);
  let text = null;
  if (ev.kind === "action" || ev.kind === "board") text = happening(ev, table && table.hand);
  else if (EVENT_TEXT[ev.kind]) text = EVENT_TEXT[ev.kind](ev);
  if (ev.kind === "shot_clock") state.shot.set(tableId, ev);
  if (ev.kind === "hand_started") state.shot.delete(tableId);
  if (text === null) return;
  const list = state.recent.get(tableId) || [];
  list.unshift({ at: Date.now(), text });
  if (list.length > RECENT) list.length = RECENT;
  state.recent.set(tableId, list);
}

function recentList(table) {
  const list = state.recent.get(table.id) || [];
  if (!list.length) return h("p", { class: "empty" }, "Nothing yet since this page opened.");
  return h("ol", { class: "recent", "aria-label": `Recent events at table ${table.id}` },
    list.map((r) => h("li", {}, h("time", {}, new Date(r.at).toLocaleTimeString("en-GB")),
      " ", r.text)));
}

// The shot clock: a clock called on a seat, the last time bank used or ruling made.
function shotClock(table) {
  const last = state.shot.get(table.id);
  if (table.clock_on_seat) return `Clock called on seat ${table.clock_on_seat}`;
  if (last) return shotText(last);
  return table.hand && table.hand.to_act !== null ? `Running on seat ${table.hand.to_act}` : "–";
}

// ------------------------------------------------------------------ view
function showTable(tableId) {
  if (state.selected !== tableId) select(tableId);
  $("detail").scrollIntoView({ block: "start" });
}

function select(tableId) {
  const before = state.selected;
  state.selected = state.selected === tableId ? null : tableId;
  state.armed = null;
  if (state.selected) history.replaceState(null, "", `#table=${encodeURIComponent(tableId)}`);
  else history.replaceState(null, "", location.pathname);
  touchTable(before);
  touchTable(state.selected);
  touchDetail();
  if (state.selected) requestAnimationFrame(() => $("detail-title").focus?.());
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

// A command that asks first: "Remove…" arms "Yes, remove ana" and Cancel.
function guarded(key, label, yes, command, table) {
  if (!canSend(command.name)) return null;
  if (state.armed !== `${table.id} ${key}`) {
    return h("button", { type: "button", class: "cmd danger", disabled: !table.online,
      dataset: { arm: key } }, label);
  }
  return h("span", { class: "confirm", role: "group", "aria-label": "Confirm" },
    commandButton(yes, command, table, { danger: true }),
    h("button", { type: "button", class: "cmd", dataset: { disarm: "1" } }, "Cancel"));
}

function seatRow(table, s, others) {
  const actions = [commandButton("Call clock", { name: "call_clock", seat: s.seat }, table),
    guarded(`remove ${s.seat}`, "Remove…", `Yes, remove ${s.player}`,
      { name: "remove_player", seat: s.seat }, table)];
  if (canSend("move_player") && others.length) {
    const armed = state.armed && state.armed.startsWith(`${table.id} move ${s.seat} `);
    const to = armed ? state.armed.split(" ")[3] : null;
    const id = `move-${s.seat}`;
    actions.push(armed ? guarded(`move ${s.seat} ${to}`, "Move…",
      `Yes, move ${s.player} to table ${to}`,
      { name: "move_player", seat: s.seat, to_table: to }, table)
      : h("span", { class: "move" }, h("label", { for: id }, "to table"),
        h("select", { id, class: "move-to", dataset: { seat: s.seat } },
          others.map((t) => h("option", { value: t.id }, t.id))),
        h("button", { type: "button", class: "cmd danger", disabled: !table.online,
          dataset: { move: s.seat, table: table.id } }, "Move…")));
  }
  const seat = seatInHand(table, s);
  return h("tr", { class: seat.classes.trim(), dataset: { seat: s.seat } },
    h("th", { scope: "row" }, s.seat), h("td", {}, seat.name),
    h("td", { class: "num" }, chips(seat.stack)),
    COMMAND_ROLES.has(state.role) ? h("td", { class: "actions" }, actions) : null);
}

function seatTable(table) {
  if (table.seats.length === 0) return h("p", { class: "empty" }, "No players seated");
  const others = [...state.tables.values()].filter((t) => t.id !== table.id && !t.closed)
    .sort((a, b) => byTableId(a.id, b.id));
  return h("table", { class: "seat-table" },
    h("caption", {}, `Players at table ${table.id}`),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Seat"),
      h("th", { scope: "col" }, "Player"), h("th", { scope: "col", class: "num" }, "Stack"),
      COMMAND_ROLES.has(state.role) ? h("th", { scope: "col" }, "Commands") : null)),
    h("tbody", {}, table.seats.map((s) => seatRow(table, s, others))));
}

function alertLines(table) {
  const list = alertsOf(table.id);
  if (!list.length) return null;
  return h("ul", { class: "detail-alerts", "aria-label": `Alerts at table ${table.id}` },
    list.map((a) => h("li", { class: `sev-${a.severity}${a.acked_by ? " acked" : ""}` },
      h("strong", {}, a.text), " — ", a.action)));
}

// The table's finished hands (issue 21), newest first: each one's Open Hand History
// download (the button is hand.js's) and, for the floor and up, its dispute timeline.
// Read when the view opens and again whenever the table's hand number moves on.
const HANDS_SHOWN = 20;
const TIMELINE_ROLES = new Set(["floor", "director", "admin"]);
const handsRead = new Map(); // table id -> {handNo, hands: [HandPublic] | null, error}

async function readHands(table) {
  const entry = { handNo: table.hand_no, hands: handsRead.get(table.id)?.hands ?? null,
    error: null };
  handsRead.set(table.id, entry);
  try {
    const body = await api(`/tables/${encodeURIComponent(table.id)}/hands?limit=${HANDS_SHOWN}`);
    entry.hands = body.data.filter((x) => x.status !== "in_progress");
  } catch (err) {
    entry.error = `The table's hands could not be read: ${err.message}`;
  }
  touchDetail();
}

function handList(table) {
  const read = handsRead.get(table.id);
  if (!read || read.handNo !== table.hand_no) readHands(table);
  if (read && read.error) return h("p", { class: "form-error", role: "alert" }, read.error);
  if (!read || !read.hands) return h("p", { class: "empty" }, "Reading the table's hands…");
  if (!read.hands.length) return h("p", { class: "empty" }, "No finished hand yet.");
  const timeline = TIMELINE_ROLES.has(state.role);
  return h("ol", { class: "hand-list", "aria-label": `Hands of table ${table.id}` },
    read.hands.map((x) => h("li", { dataset: { handNo: x.hand_no } },
      h("span", { class: "hand-no" }, `Hand #${x.hand_no}`),
      x.status === "voided" ? h("span", { class: "note" }, " voided") : null,
      x.status === "ended" ? h("button", {
        type: "button", class: "ohh", dataset: { ohhTable: table.id, ohhHand: x.hand_no },
        title: "Download the hand as Open Hand History (JSON) for a poker tracker",
      }, "OHH") : null,
      timeline ? h("a", { class: "nav", href: `timeline.html?table=${encodeURIComponent(
        table.id)}&hand=${x.hand_no}` }, "Timeline") : null)));
}

function renderDetail() {
  const table = state.selected ? state.tables.get(state.selected) : null;
  const detail = $("detail");
  detail.hidden = !table;
  document.body.classList.toggle("with-detail", Boolean(table));
  if (!table) return;
  const most = fullest();
  const entry = summaryOf(table.id);
  $("detail-title").textContent = `Table ${table.id}`;
  $("detail-title").setAttribute("tabindex", "-1");
  const hand = handOf(table);
  patchChildren($("detail-body"), [
    h("p", { class: "badges big" }, badges(table, shortBy(table, most)),
      table.online ? null : h("span", { class: "note" },
        "Commands cannot reach an offline table.")),
    entry && entry.reason ? h("p", { class: "held" }, `Held: ${entry.reason}`) : null,
    alertLines(table), houseLine(table), facts(table),
    h("h3", {}, "Hand in progress"),
    hand || h("p", { class: "empty" }, "No hand in play."),
    h("dl", { class: "facts shot" }, h("div", { class: "fact" }, h("dt", {}, "Shot clock"),
      h("dd", { dataset: { hand: "shot-clock" } }, shotClock(table)))),
    seatTable(table),
    h("h3", {}, "Recent events"), recentList(table),
    h("h3", {}, "Hands"), handList(table)].filter(Boolean));
  renderCommands(table);
}

function renderCommands(table) {
  const commands = $("commands");
  commands.hidden = !COMMAND_ROLES.has(state.role);
  if (commands.hidden) return;
  patchChildren($("table-commands"), [
    table.paused ? commandButton("Resume", { name: "resume" }, table)
      : commandButton("Pause", { name: "pause" }, table),
    guarded("close", "Close table…", `Yes, close table ${table.id}`, { name: "close_table" },
      table),
  ].filter(Boolean));
  $("h4h-note").textContent = table.hand_for_hand
    ? "Hand-for-hand is on at this table. It is floor-wide: the director page switches it."
    : "Hand-for-hand is floor-wide: the director page switches it for every table at once.";
  $("seat-form").hidden = !canSend("seat_player");
  $("director-form").hidden = !canSend("set_level");
  for (const el of document.querySelectorAll("#commands form button, #commands form input, "
    + "#commands form select")) el.disabled = !table.online;
  renderHouseForm(table); // house.js: the House control (issue 18)
  const taken = new Set(table.seats.map((s) => s.seat));
  const free = [];
  for (let seat = 1; seat <= sizeOf(table); seat += 1) if (!taken.has(seat)) free.push(seat);
  const seatSelect = $("seat-seat");
  const keep = seatSelect.value;
  if (seatSelect.dataset.free !== free.join(",")) {
    seatSelect.replaceChildren(...free.map((n) => h("option", { value: n }, `Seat ${n}`)));
    seatSelect.dataset.free = free.join(",");
    if (free.includes(Number(keep))) seatSelect.value = keep;
  }
  $("seat-full").hidden = free.length > 0;
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
  state.armed = null;
  const what = describe(command);
  const key = `${tableId} ${JSON.stringify(command)}`;
  const pending = addReply(`Sending ${what} to table ${tableId}…`, "pending");
  state.pending.add(key);
  if (button) { button.disabled = true; button.setAttribute("aria-busy", "true"); }
  touchDetail();
  let text;
  let kind = "error";
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
    } else text = `Table ${tableId} refused ${what}: ${reply.error || "no reason given"}`;
  } catch (err) {
    text = err.status === 504 ? `No reply: ${err.message}` : `Not done: ${err.message}`;
    if (err.status === 401) signOut(err.message);
  }
  pending.className = `reply ${kind}`;
  pending.replaceChildren(h("time", {}, new Date().toLocaleTimeString("en-GB")), " ", text);
  state.pending.delete(key);
  if (button) { button.removeAttribute("aria-busy"); button.disabled = false; }
  refreshTable(tableId);
  touchDetail();
}

function intField(id) {
  const el = $(id);
  if (!el.reportValidity() || el.value === "") { el.focus(); return null; }
  return Number(el.value);
}

// A click on any command button of the page (one delegated listener: see patchNode).
function onCommandClick(button) {
  const { command, table, move, arm, disarm } = button.dataset;
  if (command) send(table, JSON.parse(command), button);
  else if (move) {
    const to = button.closest("tr").querySelector("select.move-to").value;
    state.armed = `${table} move ${move} ${to}`;
  } else if (arm) state.armed = `${state.selected} ${arm}`;
  else if (disarm) state.armed = null;
  else return false;
  touchDetail();
  return true;
}

function wireDetail() {
  $("close-detail").addEventListener("click", () => select(state.selected));
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
}
