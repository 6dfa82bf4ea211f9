// A hand's dispute timeline: every card read, key and tap the table took, the intent each
// became and its acceptance or refusal (with the rule id), corrections, undos and prompts,
// in the order the table journaled them (GET /api/v1/tables/{t}/hands/{n}/timeline), and
// the same as a file to attach to a ruling. Open it as timeline.html?table=T1&hand=12.
// Roles floor, director and admin; the API decides, the page says what it answered.
"use strict";

const API = "/api/v1";
const TOKEN_KEY = "pitboss.token";  // shared with the floor page (this tab only)
const t = { token: null, role: null, table: null, hand: null, busy: false };
const $ = (id) => document.getElementById(id);
const SOURCES = { reader: "reader", keypad: "keypad", tablet: "tablet", clock: "clock",
  node: "seat node", host: "floor", table: "table" };

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

async function call(path) {
  let response;
  try {
    response = await fetch(API + path, { headers: { Authorization: `Bearer ${t.token}` } });
  } catch (err) {
    throw Object.assign(new Error(`the bridge cannot be reached (${err.message}); check the `
      + "network"), { status: 0 });
  }
  if (response.ok) return response;
  let body = null;
  try { body = await response.json(); } catch { body = null; }
  const detail = body && (body.message || (typeof body.detail === "string" ? body.detail : null));
  throw Object.assign(new Error(detail || `HTTP ${response.status}`), { status: response.status });
}

// A wall-clock time with milliseconds (the browser's time zone), and the table's clock as
// seconds since the first input of the hand (exact between inputs).
const wall = (ts) => {
  const d = new Date(ts * 1000);
  return `${d.toLocaleTimeString("en-GB", { hour12: false })}.${String(d.getMilliseconds()).padStart(3, "0")}`;
};
const since = (at, first) => (at === null || first === null ? "" : `+${(at - first).toFixed(3)} s`);

function outcomeOf(e) {
  if (e.outcome === "rejected") {
    return el("span", { class: "t-outcome refused" }, "refused ",
      el("span", { class: "rule" }, e.rule || "no rule"));
  }
  if (e.outcome === "accepted") {
    return el("span", { class: "t-outcome accepted" }, `accepted → #${e.results.join(", #")}`);
  }
  if (e.outcome === "none") return el("span", { class: "t-outcome none" }, "no event");
  return e.rule ? el("span", { class: "rule" }, e.rule) : null;
}

function entryRow(e, first) {
  const classes = ["t-entry", e.category, e.caused_by === null ? "" : "caused",
    e.outcome === "rejected" ? "refused" : ""].filter(Boolean).join(" ");
  return el("li", { class: classes, "data-seq": String(e.seq), "data-kind": e.kind,
    "data-outcome": e.outcome || null },
  el("span", { class: "t-seq" }, `#${e.seq}`),
  el("time", { class: "t-time", datetime: new Date(e.ts * 1000).toISOString() }, wall(e.ts)),
  el("span", { class: "t-clock" }, since(e.at, first)),
  el("span", { class: `t-source ${e.source}` },  // a caused event: its input's, said above
    e.caused_by === null ? SOURCES[e.source] || e.source : ""),
  el("span", { class: "t-what" }, e.what,
    e.intent ? el("span", { class: "t-intent" }, ` ${e.intent}`) : null,
    e.card ? el("span", { class: "t-card" }, ` ${e.card}`) : null),
  outcomeOf(e));
}

function render(body) {
  const firstAt = body.entries.map((e) => e.at).find((at) => at !== null);
  const refused = body.entries.filter((e) => e.outcome === "rejected").length;
  const inputs = body.entries.filter((e) => e.outcome !== null).length;
  $("t-title").textContent = `Table ${body.table_id} · hand ${body.hand_no}`;
  $("t-summary").textContent = `${body.status.replace("_", " ")} · ${body.count} events from `
    + `seq ${body.first_seq} · ${inputs} inputs, ${refused} refused`
    + (body.truncated ? " · cut at the first events (download the file for all)" : "");
  $("t-cards").textContent = `Cards: ${body.cards_note}.`;
  $("t-entries").replaceChildren(...body.entries.map((e) => entryRow(e,
    firstAt === undefined ? null : firstAt)));
  $("t-hand-view").hidden = false;
  $("t-download").disabled = false;
}

const handPath = () => `/tables/${encodeURIComponent(t.table)}/hands/${t.hand}`;

async function load() {
  $("t-download").disabled = true;
  $("t-error").textContent = "";
  if (!t.table || !t.hand) {
    $("t-hand-view").hidden = true;
    $("t-error").textContent = "Name a table and a hand to see its timeline.";
    return;
  }
  try {
    render(await (await call(`${handPath()}/timeline`)).json());
  } catch (err) {
    if (err.status === 401) { signOut("That token is not recognised."); return; }
    $("t-hand-view").hidden = true;
    $("t-error").textContent = err.message;
  }
}

async function download(button) {
  if (t.busy) return;
  t.busy = true;
  button.setAttribute("aria-busy", "true");
  const format = $("t-format").value;
  try {
    const response = await call(`${handPath()}/timeline.${format}`);
    const named = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
    const url = URL.createObjectURL(await response.blob());
    const link = el("a", { href: url, download: named ? named[1] : `timeline.${format}` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  } catch (err) {
    $("t-error").textContent = err.message;
  } finally {
    t.busy = false;
    button.removeAttribute("aria-busy");
  }
}

function pick(table, hand) {
  t.table = table || null;
  t.hand = Number.isInteger(hand) && hand > 0 ? hand : null;
  $("t-table").value = t.table || "";
  $("t-hand").value = t.hand ? String(t.hand) : "";
  const query = t.table && t.hand ? `?table=${encodeURIComponent(t.table)}&hand=${t.hand}` : "";
  history.replaceState(null, "", `${location.pathname}${query}`);
}

async function signIn(token) {
  t.token = token;
  try {
    t.role = (await (await call("/director/whoami")).json()).role;
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
  await load();
}

function signOut(reason) {
  Object.assign(t, { token: null, role: null });
  sessionStorage.removeItem(TOKEN_KEY);
  $("t-board").hidden = true;
  $("t-who").hidden = true;
  $("t-sign-in").hidden = false;
  $("t-sign-in-error").textContent = reason || "";
}

document.addEventListener("DOMContentLoaded", () => {
  const query = new URLSearchParams(location.search);
  pick(query.get("table"), Number(query.get("hand")));
  $("t-sign-in-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const token = $("t-token").value.trim();
    if (token) signIn(token);
  });
  $("t-pick").addEventListener("submit", (e) => {
    e.preventDefault();
    pick($("t-table").value.trim(), Number($("t-hand").value));
    load();
  });
  $("t-download").addEventListener("click", (e) => download(e.currentTarget));
  const saved = sessionStorage.getItem(TOKEN_KEY);
  if (saved) signIn(saved);
});
