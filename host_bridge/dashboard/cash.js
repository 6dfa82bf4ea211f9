// The cash room: each cash game's tables, waiting list (join, call, seat), removals due,
// the new-table suggestion and today's rake. It polls /api/v1/cash/games; the API's roles
// decide what it may do, the page only hides what a role may not send. Loaded after client.js and
// side.js (the DOM builder h, the API client, the sign-in panel).
"use strict";

const ACTORS = new Set(["floor", "director", "admin"]);
const c = { timer: null, busy: false, last: "" };
const amount = (n) => Number(n).toLocaleString("en-US");

function note(text) {
  const log = $("c-log");
  log.prepend(h("li", {}, `${new Date().toLocaleTimeString()} ${text}`));
  while (log.children.length > 8) log.lastChild.remove();
}

function button(text, action, data, extra = {}) {
  return h("button", { type: "button", class: "actor-only", "data-action": action,
    ...Object.fromEntries(Object.entries(data).map(([k, v]) => [`data-${k}`, v])), ...extra },
  text);
}

function tableCard(g, t) {
  return h("li", { class: "c-table", "data-table": t.table_id },
    h("strong", {}, `Table ${t.table_id} · ${t.players.length}/${t.seats}`),
    h("ol", {}, ...t.players.map((p) => h("li", { value: p.seat, "data-seat": p.seat,
      class: p.sitting_out ? "out" : "" }, `${p.player}`
      + (p.stack === null ? "" : ` ${amount(p.stack)} ${g.unit}`)
      + (p.sitting_out ? ` (sitting out, ${p.sitting_out})` : "")))));
}

function gameCard(g) {
  const waiting = g.waiting.filter((p) => !g.called.some((x) => x.player === p));
  const facts = [["Blinds", `${amount(g.small_blind)} / ${amount(g.big_blind)} ${g.unit}`],
    ["Buy-in", `${amount(g.buy_in_min)} – ${amount(g.buy_in_max)} ${g.unit} (${g.buy_in_rule})`
      + (g.no_ratholing ? " · no ratholing (CASH-3)" : "")
      + (g.banzai ? ` · Banzai, ${g.max_tables} tables (CASH-13)` : "")],
    ["Rake today", `${amount(g.rake_today)} ${g.unit}`]];
  return h("li", { class: "c-game", "data-game": g.id },
    h("h2", {}, g.name), h("p", { class: "label" }, g.label),
    h("dl", { class: "facts" }, ...facts.flatMap(([k, v]) => [h("dt", {}, k),
      h("dd", { "data-fact": k.toLowerCase() }, v)])),
    h("h3", {}, "Tables"),
    h("ul", { class: "c-tables" }, ...g.tables.map((t) => tableCard(g, t))),
    h("h3", {}, `Waiting list (${g.waiting.length})`),
    h("ol", { class: "c-rows c-waiting", "aria-label": `Waiting list of ${g.name}` },
      ...waiting.map((p) => h("li", { "data-player": p }, p,
        button(`Remove ${p} from the list`, "leave", { game: g.id, player: p })))),
    h("form", { class: "command-form actor-only c-join", "data-game": g.id },
      h("span", { class: "field" }, h("label", { for: `c-join-${g.id}` }, "Player id"),
        h("input", { id: `c-join-${g.id}`, required: "", maxlength: "64",
          pattern: "[A-Za-z0-9_.:\\-]+" })),
      h("button", { type: "submit" }, "Join list")),
    button("Call next", "call", { game: g.id }),
    h("ul", { class: "c-rows c-called", "aria-label": "Called to a seat" },
      ...g.called.map((x) => h("li", { "data-player": x.player },
        `${x.player} → table ${x.table_id} seat ${x.seat}`,
        h("label", { for: `c-stack-${x.player}`, class: "actor-only" }, "Buy-in"),
        h("input", { id: `c-stack-${x.player}`, class: "actor-only", type: "number",
          min: "1", step: "1", value: String(g.buy_in_min) }),
        button(`Seat ${x.player}`, "seat", { game: g.id, player: x.player })))),
    h("h3", {}, "Removals due"),
    h("ul", { class: "c-rows c-due", "aria-label": "Removals due" },
      ...(g.due.length ? g.due.map((d) => h("li", { "data-player": d.player },
        `${d.player} at table ${d.table_id} seat ${d.seat} `,
        h("span", { class: "rule" }, `(${d.rule})`),
        button(`Remove ${d.player}`, "remove", { game: g.id, player: d.player,
          table: d.table_id }))) : [h("li", {}, "None.")])),
    ...(g.suggested_table ? [h("p", { class: "c-suggest" },
      `${waiting.length} waiting: open table ${g.suggested_table}? `,
      button(`Open table ${g.suggested_table}`, "open", { game: g.id,
        table: g.suggested_table }))] : []));
}

function render(body) {
  const text = JSON.stringify(body);
  if (text === c.last) return;  // keep what is being typed until something changes
  c.last = text;
  $("c-none").hidden = body.count > 0;
  $("c-games").replaceChildren(...body.data.map(gameCard));
  const actor = ACTORS.has(session.role);
  document.querySelectorAll(".actor-only").forEach((n) => { n.hidden = !actor; });
}

async function refresh() {
  try {
    render(await api("/cash/games"));
    $("c-error").textContent = "";
  } catch (err) {
    if (err.status === 401) { panel.signOut("That token is not recognised."); return; }
    $("c-error").textContent = err.message;
  }
}

async function act(target, path, method, body, done) {
  if (c.busy) return;
  c.busy = true;
  target.setAttribute("aria-busy", "true");
  target.disabled = true;
  try {
    const answer = await api(path, { method, body: body ? JSON.stringify(body) : undefined });
    note(done(answer));
  } catch (err) {
    note(`Refused: ${err.message}`);
  } finally {
    c.busy = false;
    target.removeAttribute("aria-busy");
    target.disabled = false;
    await refresh();
  }
}

function onClick(e) {
  const b = e.target.closest("button[data-action]");
  if (!b) return;
  const game = encodeURIComponent(b.dataset.game);
  const { player, table } = b.dataset;
  if (b.dataset.action === "call") {
    act(b, `/cash/games/${game}/call`, "POST", null, (g) => {
      const x = g.called[g.called.length - 1];
      return x ? `Called ${x.player} to table ${x.table_id} seat ${x.seat}.` : "Called.";
    });
  } else if (b.dataset.action === "seat") {
    const stack = Number($(`c-stack-${player}`).value);
    act(b, `/cash/games/${game}/seat`, "POST", { player, stack },
      (s) => `Seated ${player} at table ${s.table_id} seat ${s.seat} with ${amount(stack)}.`);
  } else if (b.dataset.action === "leave") {
    act(b, `/cash/games/${game}/waiting/${encodeURIComponent(player)}`, "DELETE", null,
      () => `${player} left the list.`);
  } else if (b.dataset.action === "remove") {
    act(b, `/cash/games/${game}/removals`, "POST", { player, table_id: table },
      () => `Removed ${player} from table ${table}; the stack goes to the cashier.`);
  } else if (b.dataset.action === "open") {
    act(b, `/cash/games/${game}/tables`, "POST", { table_id: table },
      (g) => `Table ${table} opened; ${g.called.length} called.`);
  }
}

function onSubmit(e) {
  const form = e.target.closest("form.c-join");
  if (!form) return;
  e.preventDefault();
  const input = form.querySelector("input");
  const player = input.value.trim();
  act(e.submitter, `/cash/games/${encodeURIComponent(form.dataset.game)}/waiting`, "POST",
    { player }, () => `${player} joined the list.`);
}

async function loadHouses() {
  try {
    const houses = await api("/houses");
    $("c-house").replaceChildren(...houses.data.filter((house) => house.kind === "cash")
      .map((house) => h("option", { value: house.file }, `${house.file} — ${house.label}`)));
  } catch (err) {
    $("c-error").textContent = err.message;
  }
}

const panel = signInPanel("c", {
  async opened() {
    c.last = "";
    await loadHouses();
    await refresh();
    c.timer = setInterval(refresh, 1000);
  },
  closed() {
    clearInterval(c.timer);
    Object.assign(c, { timer: null, last: "" });
  },
});

document.addEventListener("DOMContentLoaded", () => {
  $("c-games").addEventListener("click", onClick);
  $("c-games").addEventListener("submit", onSubmit);
  $("c-new-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const tables = $("c-tables").value.split(",").map((s) => s.trim()).filter(Boolean);
    act(e.submitter, "/cash/games", "POST", { house: $("c-house").value, tables },
      (g) => `Game ${g.id} created at ${g.tables.map((t) => t.table_id).join(", ") || "no table yet"}.`);
  });
  panel.start();
});
