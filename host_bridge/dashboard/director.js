// The tournament director's page: the bridge's tournaments (several at once, each over its
// own tables), a new one created while others run, and for the chosen one (?t=<id> in the
// URL): registration, the seat draw, balancing suggestions to confirm, hand-for-hand,
// places and payouts, rebuys and add-ons, the last hands of the day, and the last
// decisions with who took them (its log, for the roles that may read it). It polls /api/v1/director/tournaments and the chosen tournament's
// /api/v1/director/tournaments/<id>; the API's roles decide what it may do, the page only
// hides what a role may not send. Loaded after client.js and side.js (the DOM builder h, the API
// client, the sign-in panel).
"use strict";

const ACTORS = new Set(["director", "admin"]);
const LOG_READERS = new Set(["director", "admin", "floor"]);
const LOG_SHOWN = 12;  // the last decisions the page shows
const LIVE = new Set(["registering", "running"]);
const t = { status: null, timer: null, busy: false,
  tid: new URLSearchParams(location.search).get("t"), list: [], logKey: null };
const chips = (n) => Number(n).toLocaleString("en-US");
const money = (cents) => (cents / 100).toLocaleString("en-US",
  { style: "currency", currency: "USD" });

function note(text) {
  const log = $("t-log");
  log.prepend(h("li", {}, `${new Date().toLocaleTimeString()} ${text}`));
  while (log.children.length > 8) log.lastChild.remove();
}

// the chosen tournament's API path (its id in the URL path, encoded)
const tpath = (suffix = "") => `/director/tournaments/${encodeURIComponent(t.tid)}${suffix}`;

function choose(tid, push) {
  t.tid = tid;
  const url = `?t=${encodeURIComponent(tid)}`;
  if (push) history.pushState({ t: tid }, "", url); else history.replaceState({ t: tid }, "", url);
}

function renderList(list) {
  t.list = list;
  $("t-none").hidden = list.length > 0;
  $("t-list").replaceChildren(...list.map((x) => {
    const link = h("a", { href: `?t=${encodeURIComponent(x.id)}`, "data-tid": x.id },
      `${x.name} `, h("span", { class: "stage" }, `${x.stage} · ${x.players_left}/${x.entries}`
        + ` · tables ${x.tables.join(", ")}`));
    if (x.id === t.tid) link.setAttribute("aria-current", "page");
    link.addEventListener("click", (e) => {
      e.preventDefault();
      choose(x.id, true);
      refresh();
    });
    return h("li", {}, link);
  }));
}

// without ?t: the latest live tournament, else the latest
function fallback(list) {
  const live = list.filter((x) => LIVE.has(x.stage));
  return (live.length ? live : list).at(-1);
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
  $("t-facts").replaceChildren(...facts.flatMap(([k, v]) => [h("dt", {}, k),
    h("dd", { "data-fact": k.toLowerCase() }, v)]));

  const actor = ACTORS.has(session.role);
  document.querySelectorAll(".director-only").forEach((n) => { n.hidden = !actor; });
  $("t-registered").textContent = `${s.registered.length} registered`
    + (s.stage === "registering" ? "; the seat draw has not been made." : ".");
  $("t-start").hidden = !actor || s.stage !== "registering";

  const moves = s.suggestions.flatMap((op) => op.moves.map((m) => ({ ...m, op: op.op })));
  $("t-balanced").hidden = moves.length > 0;
  $("t-balanced").textContent = s.stage === "running" ? "The tables are balanced."
    : "Nothing to balance.";
  $("t-moves").replaceChildren(...moves.map((m) => h("li", { "data-player": m.player },
    `${m.player}: ${m.from_table ? `table ${m.from_table} seat ${m.from_seat}` : "new entry"}`
    + ` → table ${m.to_table} seat ${m.to_seat} `, h("span", { class: "rule" },
      `${m.op === "break" ? "table broken" : m.op === "redraw" ? "final-table redraw"
        : "balance"} (${m.rule})`))));
  $("t-confirm").hidden = !actor || moves.length === 0 || s.auto_balance;
  $("t-last-hands").hidden = !actor || s.stage !== "running" || Boolean(s.last_hands);

  const h4h = s.hand_for_hand;
  $("t-h4h-status").className = h4h.on ? "h4h-on" : "";
  $("t-h4h-status").textContent = h4h.on
    ? `On: hand ${h4h.hand}; ${h4h.waiting_for.length ? `waiting for ${h4h.waiting_for.join(", ")}`
      : "every table has finished it"}.`
    : (s.last_hands ? `Off. Last hands of the day: ${s.last_hands.card} each.` : "Off.");

  const most = Math.max(0, ...s.tables.filter((x) => !x.closed).map((x) => x.players.length));
  $("t-tables").replaceChildren(...s.tables.map((x) => {
    const short = !x.closed && x.players.length > 0 && most - x.players.length >= 2;
    return h("li", { class: `t-card${x.closed ? " closed" : ""}${short ? " short" : ""}`,
      "data-table": x.table },
    h("h3", {}, `Table ${x.table}${x.closed ? " (broken)" : ""} · ${x.players.length}/${x.seats}`
      + (x.paused ? " · held" : "")),
    h("ol", {}, ...x.players.map((p) => h("li", { value: p.seat,
      class: p.arriving ? "arriving" : "", "data-seat": p.seat },
    `${p.player} ${chips(p.stack)}${p.arriving ? " (moving here)" : ""}`))));
  }));

  $("t-prizes").textContent = s.prizes.length
    ? `Prizes: ${s.prizes.map(money).join(", ")}` : "";
  const places = [...s.places].sort((a, b) => a.place - b.place);
  $("t-places").replaceChildren(...places.slice(0, 40).map((p) => h("tr",
    { "data-entry": p.entry },
    h("td", {}, p.place === p.place_to ? String(p.place) : `${p.place}–${p.place_to}`),
    h("td", {}, p.player), h("td", {}, p.prize ? money(p.prize) : "—"))));
}

// A download for trackers (issue 21): the tournament's hands as Open Hand History, or its
// Open Tournament Summary; fetched with the token (a plain link cannot carry it).
async function download(e, suffix, name) {
  e.preventDefault();
  try {
    await saveAs(await bridgeRequest(session.token, tpath(suffix)), `${t.tid}.${name}`);
  } catch (err) {
    $("t-error").textContent = `The download failed: ${err.message}`;
  }
}

async function refresh() {
  const asked = t.tid;
  try {
    const list = await api("/director/tournaments");
    if (t.tid !== asked) return;  // another tournament was chosen meanwhile
    if (!t.tid && list.length) choose(fallback(list).id, false);
    renderList(list);
    if (!t.tid) { $("t-view").hidden = true; return; }
    if (!list.some((x) => x.id === t.tid)) {
      $("t-view").hidden = true;
      $("t-error").textContent = `No tournament ${t.tid} on this bridge; choose one above.`;
      return;
    }
    const tid = t.tid;
    const s = await api(tpath());
    if (t.tid !== tid) return;
    $("t-error").textContent = "";
    $("t-view").hidden = false;
    render(s);
    await renderDecisions(s);
  } catch (err) {
    if (err.status === 401) { panel.signOut("That token is not recognised."); return; }
    $("t-error").textContent = err.message;
  }
}

// the last decisions (GET .../log?last=N), redrawn when the tournament changed
async function renderDecisions(s) {
  $("t-decisions").hidden = !LOG_READERS.has(session.role);
  const key = `${s.id}:${s.version}`;
  if (!LOG_READERS.has(session.role) || t.logKey === key) return;
  const entries = await api(tpath(`/log?last=${LOG_SHOWN}`));
  t.logKey = key;
  $("t-decisions-list").replaceChildren(...entries.reverse().map((e) => h("li",
    { "data-seq": e.seq, "data-kind": e.kind },
    h("time", { datetime: new Date(e.at * 1000).toISOString() },
      new Date(e.at * 1000).toLocaleTimeString()), ` ${e.what} `,
    h("span", { class: "by" }, e.by ? `by ${e.by.name} (${e.by.role})` : "by the floor's task"))));
}

function buy(e, suffix, what) {
  const player = $("m-player").value.trim();
  if (!player) { note("Give a player id first."); return; }
  act(e.currentTarget, tpath(`/players/${encodeURIComponent(player)}${suffix}`), {},
    () => `${what} for ${player}: the table has the chips.`);
}

// "T5:9, T6" -> { T5: 9, T6: 9 } (a wire id may hold ":"; the seats are the digits after
// the last one; 9 seats when none are given)
function parseTables(text) {
  const out = {};
  for (const part of text.split(/[\s,;]+/).filter(Boolean)) {
    const m = part.match(/^(.+):(\d+)$/);
    out[m ? m[1] : part] = m ? Number(m[2]) : 9;
  }
  return out;
}

async function create(form) {
  if (t.busy) return;
  t.busy = true;
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  const body = {
    name: $("t-new-name").value.trim(), tables: parseTables($("t-new-tables").value),
    players: $("t-new-players").value.split(/[\s,;]+/).filter(Boolean),
    starting_stack: Number($("t-new-stack").value),
    buy_in: Math.round(Number($("t-new-buy-in").value) * 100),
    level_minutes: Number($("t-new-level").value),
  };
  try {
    const s = await api("/director/tournaments", { method: "POST", body: JSON.stringify(body) });
    note(`Created ${s.name} (${s.id}) over tables ${Object.keys(body.tables).join(", ")}.`);
    form.reset();
    $("t-new").open = false;
    choose(s.id, true);
  } catch (err) {
    note(`Refused: ${err.message}`);
  } finally {
    t.busy = false;
    button.disabled = false;
  }
  await refresh();
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

const panel = signInPanel("t", {
  async opened() {
    const actor = ACTORS.has(session.role);
    document.querySelectorAll(".director-only").forEach((n) => { n.hidden = !actor; });
    await refresh();
    t.timer = setInterval(refresh, 1000);
  },
  closed() {
    clearInterval(t.timer);
    t.timer = null;
  },
});

document.addEventListener("DOMContentLoaded", () => {
  $("t-register-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const player = $("t-player").value.trim();
    act(e.submitter, tpath("/players"), { player },
      () => `Registered ${player}.`);
    $("t-player").value = "";
  });
  $("t-ohh").addEventListener("click", (e) => download(e, "/ohh", "ohh"));
  $("t-ots").addEventListener("click", (e) => download(e, "/summary.ohh", "ots"));
  $("t-start").addEventListener("click", (e) => act(e.currentTarget,
    tpath("/start"), {}, () => "Seats drawn; the players are seated."));
  $("t-confirm").addEventListener("click", (e) => act(e.currentTarget,
    tpath("/balancing"), { version: t.status ? t.status.version : null },
    () => "Moves carried out."));
  $("t-last-hands").addEventListener("click", (e) => act(e.currentTarget,
    tpath("/last-hands"), {}, (s) => `Last hands of the day: ${s.last_hands.card} each.`));
  $("t-rebuy").addEventListener("click", (e) => buy(e, "/rebuy", "Rebuy"));
  $("t-add-on").addEventListener("click", (e) => buy(e, "/add-on", "Add-on"));
  $("t-new-form").addEventListener("submit", (e) => {
    e.preventDefault();
    create(e.currentTarget);
  });
  window.addEventListener("popstate", () => {
    t.tid = new URLSearchParams(location.search).get("t");
    if (session.token) refresh();
  });
  panel.start();
});
