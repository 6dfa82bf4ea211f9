// Pitboss floor page: the table cards. Full cards (the hand in play, the seats) or a
// compact view (a tile per table: 1920x1080 holds 200), sorted (needs attention first,
// table id, fewest players) and filtered (needs attention, short-handed, a section);
// closed tables leave the grid (a count and "Show closed"). The level and blinds in
// force are the host's (the summary's tables map, strip.js) for a tournament's table.
// Rendering is cheap at 200 tables: app.js batches changes per animation frame and
// renderGrid() rebuilds only the cards of the tables that changed, patching each into its
// existing element (common.js), and moves elements only when the order changed.
"use strict";

const SHORT_BY = 2; // a table this many players below the fullest one is short-handed
const VIEW_KEY = "pitboss.floor.view";
const DEFAULT_SIZE = 10; // seats a table offers when the summary does not say
const ATTENTION_FROM = 25; // the rank from which a table "needs attention"

const view = Object.assign({ compact: false, sort: "attention", filter: "all", section: "",
  showClosed: false }, readView());

const gridView = { cards: new Map(), key: "", order: [] };

function readView() {
  try { return JSON.parse(localStorage.getItem(VIEW_KEY)) || {}; } catch { return {}; }
}

function saveView() {
  try { localStorage.setItem(VIEW_KEY, JSON.stringify(view)); } catch { /* private mode */ }
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

// The seats a table has: the summary's size, never fewer than its highest seat taken.
function sizeOf(table) {
  const entry = summaryOf(table.id);
  const size = entry && entry.size ? entry.size : DEFAULT_SIZE;
  return Math.max(size, ...table.seats.map((s) => s.seat));
}

// The level and blinds in force: the host's level clock for a tournament's table (a
// table's own stakes are those of its last hand started), the table's own otherwise.
function inForce(table) {
  const entry = summaryOf(table.id);
  if (entry && entry.tournament) {
    return { level: entry.level, blinds: blindsText(entry), host: true };
  }
  return { level: table.level, blinds: stakesText(table.stakes), host: false };
}

// How urgently a table needs a person (higher first) and the colour that says so.
function attentionOf(table, most) {
  const open = alertsOf(table.id).filter((a) => !a.acked_by);
  if (open.length) {
    return { rank: 30 + 10 * SEVERITY_RANK[open[0].severity], level: open[0].severity };
  }
  if (table.closed) return { rank: -1, level: "none" }; // shown when asked: after the rest
  if (table.online === false) return { rank: 55, level: "high" };
  if ((table.seat_nodes_offline || []).length || table.conflicts) {
    return { rank: 45, level: "medium" };
  }
  if (table.clock_on_seat) return { rank: 42, level: "medium" };
  if (table.online === null) return { rank: 35, level: "low" };
  if (shortBy(table, most)) return { rank: 30, level: "low" };
  if (alertsOf(table.id).length) return { rank: ATTENTION_FROM, level: "acked" };
  const entry = summaryOf(table.id);
  if (table.paused || (entry && entry.state === "break")) return { rank: 10, level: "none" };
  return { rank: 0, level: "none" };
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
  const entry = summaryOf(table.id);
  if (table.closed) out.push(h("span", { class: "badge closed" }, "CLOSED"));
  if (entry && entry.state === "break") out.push(h("span", { class: "badge break" }, "BREAK"));
  if (table.paused) out.push(h("span", { class: "badge paused" }, "PAUSED"));
  if (table.hand_for_hand) out.push(h("span", { class: "badge h4h" }, "HAND-FOR-HAND"));
  if (short) out.push(h("span", { class: "badge short" }, `SHORT −${short}`));
  if (table.colour_up_at_level) {
    out.push(h("span", { class: "badge colour" }, `COLOUR-UP AT L${table.colour_up_at_level}`));
  }
  return out;
}

// The hand panel (hand.js) with the state's seq and the latest action or board of it.
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
  const force = inForce(table);
  const rows = [
    ["Level", force.level],
    ["Blinds", force.blinds],
    ["Clock", clock],
    ["Hand", table.hand_in_progress ? `#${table.hand_no} in play${street}`
      : table.hand_no ? `#${table.hand_no} over` : "none yet"],
    ["Players", `${table.seats.length}`],
  ];
  return h("dl", { class: "facts" }, rows.map(([k, v]) => h("div", { class: "fact" },
    h("dt", {}, k), h("dd", { dataset: { fact: k.toLowerCase() } }, v))));
}

// An action (positions as in the events: the hand's players in order) or a board dealt.
const MOVES = { fold: "folds", check: "checks", call: "calls", bet_raise: "bets or raises",
  show: "shows", muck: "mucks", kill: "hand killed" };

function happening(ev, hand) {
  if (ev.kind === "board") return `${ev.street || "board"} ${ev.cards.map(cardText).join(" ")}`;
  const who = hand && hand.players[ev.player] ? `Seat ${hand.players[ev.player].seat}`
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

// What a compact tile says about a table, most urgent first, in a few words.
function tileStatus(table, short, open) {
  const entry = summaryOf(table.id);
  if (table.online === false) return "OFFLINE";
  if (table.online === null) return "UNKNOWN";
  if (open.length) return open[0].kind.replace(/_/g, " ");
  if ((table.seat_nodes_offline || []).length) return "SEAT NODE";
  if (table.clock_on_seat) return `CLOCK S${table.clock_on_seat}`;
  if (short) return `SHORT −${short}`;
  if (entry && entry.state === "break") return "BREAK";
  if (table.paused) return "PAUSED";
  if (table.hand_in_progress && table.hand) return `#${table.hand_no} ${table.hand.street}`;
  return table.closed ? "CLOSED" : "waiting";
}

function cardClasses(table, short) {
  return ["table-card", table.online === null ? "unknown" : table.online ? "online"
    : "offline", short ? "short" : "", table.paused ? "paused" : "",
  table.closed ? "closed" : "", table.id === state.selected ? "selected" : ""]
    .filter(Boolean).join(" ");
}

function tableCard(table, most) {
  const short = shortBy(table, most);
  const attention = attentionOf(table, most);
  const open = alertsOf(table.id).filter((a) => !a.acked_by);
  const report = state.reported.get(table.id);
  const data = { table: table.id, attention: attention.level, seq: report ? report.seq : null };
  if (view.compact) {
    const force = inForce(table);
    const status = tileStatus(table, short, open);
    return h("li", { class: cardClasses(table, short), dataset: data },
      h("button", { type: "button", class: "open tile", dataset: { open: table.id },
        "aria-pressed": String(table.id === state.selected),
        "aria-label": `Table ${table.id}: ${status}, ${table.seats.length} players` },
      h("span", { class: "tile-id" }, table.id),
      h("span", { class: "tile-players", title: "players / seats" },
        `${table.seats.length}/${sizeOf(table)}`),
      h("span", { class: "tile-level" }, `L${force.level} · ${force.blinds}`),
      h("span", { class: "tile-status" }, status)));
  }
  return h("li", { class: cardClasses(table, short), dataset: data },
    h("div", { class: "card-head" },
      h("h3", {}, h("button", {
        type: "button", class: "open", "aria-pressed": String(table.id === state.selected),
        dataset: { open: table.id },
      }, `Table ${table.id}`)),
      h("p", { class: "badges" }, badges(table, short))),
    open.length ? h("p", { class: `card-alert sev-${open[0].severity}` }, open[0].text) : null,
    houseLine(table), facts(table), handOf(table), seatList(table));
}

// The tables the grid shows, in the chosen order.
function visibleTables(most) {
  const rows = [];
  for (const t of state.tables.values()) {
    if (t.closed && !view.showClosed) continue;
    const entry = summaryOf(t.id);
    if (view.section && (!entry || entry.section !== view.section)) continue;
    const attention = attentionOf(t, most);
    if (view.filter === "attention" && attention.rank < ATTENTION_FROM) continue;
    if (view.filter === "short" && !shortBy(t, most)) continue;
    rows.push({ t, rank: attention.rank });
  }
  const sorts = {
    attention: (a, b) => b.rank - a.rank || byTableId(a.t.id, b.t.id),
    id: (a, b) => byTableId(a.t.id, b.t.id),
    players: (a, b) => a.t.seats.length - b.t.seats.length || byTableId(a.t.id, b.t.id),
  };
  return rows.sort(sorts[view.sort] || sorts.id).map((r) => r.t);
}

// Patch the cards of `dirty` (a Set of ids; null: every card) and put them in order.
function renderGrid(dirty) {
  const grid = $("grid");
  const most = fullest();
  const key = [view.compact, view.sort, view.filter, view.section, view.showClosed, most]
    .join("|");
  const everything = dirty === null || key !== gridView.key;
  gridView.key = key;
  grid.classList.toggle("compact", view.compact);
  const tables = visibleTables(most);
  const ids = tables.map((t) => t.id);
  const keep = new Set(ids);
  for (const [id, el] of gridView.cards) {
    if (!keep.has(id)) { el.remove(); gridView.cards.delete(id); }
  }
  for (const t of tables) {
    const el = gridView.cards.get(t.id);
    if (!el) gridView.cards.set(t.id, tableCard(t, most));
    else if (everything || dirty.has(t.id)) patchNode(el, tableCard(t, most));
  }
  if (ids.join("\n") !== gridView.order.join("\n") || grid.children.length !== ids.length) {
    ids.forEach((id, i) => {
      const el = gridView.cards.get(id);
      if (grid.children[i] !== el) grid.insertBefore(el, grid.children[i] || null);
    });
  }
  gridView.order = ids;
  renderToolbar(most);
}

// The toolbar's counts and choices: closed tables, the sections the summary names.
function renderToolbar(most) {
  let closed = 0;
  let shown = 0;
  for (const t of state.tables.values()) if (t.closed) closed += 1;
  shown = gridView.order.length;
  const toggle = $("show-closed");
  toggle.hidden = closed === 0 && !view.showClosed;
  toggle.textContent = view.showClosed ? `Hide closed (${closed})` : `Show closed (${closed})`;
  toggle.setAttribute("aria-pressed", String(view.showClosed));
  const sections = [...new Set(Object.values((summary.body && summary.body.tables) || {})
    .map((e) => e.section).filter(Boolean))].sort(byTableId);
  const select = $("section");
  if (select.dataset.sections !== sections.join(",")) {
    select.replaceChildren(h("option", { value: "" }, "All sections"),
      ...sections.map((s) => h("option", { value: s }, s)));
    select.dataset.sections = sections.join(",");
    select.value = sections.includes(view.section) ? view.section : "";
  }
  $("section-field").hidden = sections.length === 0;
  $("no-tables").hidden = state.tables.size > 0;
  $("none-match").hidden = shown > 0 || state.tables.size === 0;
  $("shown").textContent = state.tables.size
    ? `${shown} of ${state.tables.size - (view.showClosed ? 0 : closed)} shown` : "";
  return most;
}

function wireGrid() {
  const compact = $("compact");
  compact.checked = view.compact;
  $("sort").value = view.sort;
  $("filter").value = view.filter;
  const changed = () => { saveView(); scheduleRender(); };
  compact.addEventListener("change", () => { view.compact = compact.checked; changed(); });
  $("sort").addEventListener("change", (e) => { view.sort = e.target.value; changed(); });
  $("filter").addEventListener("change", (e) => { view.filter = e.target.value; changed(); });
  $("section").addEventListener("change", (e) => { view.section = e.target.value; changed(); });
  $("show-closed").addEventListener("click", () => {
    view.showClosed = !view.showClosed;
    changed();
  });
}

function forgetGrid() {
  gridView.cards.clear();
  gridView.order = [];
  gridView.key = "";
  $("grid").replaceChildren();
}
