// A hand's dispute timeline: every card read, key and tap the table took, the intent each
// became and its acceptance or refusal (with the rule id), corrections, undos and prompts,
// in the order the table journaled them (GET /api/v1/tables/{t}/hands/{n}/timeline), and
// the same as a file to attach to a ruling. Open it as timeline.html?table=T1&hand=12.
// Roles floor, director and admin; the API decides, the page says what it answered.
// Loaded after client.js and side.js (the DOM builder h, the API client, the sign-in
// panel).
"use strict";

const t = { table: null, hand: null, busy: false };
const SOURCES = { reader: "reader", keypad: "keypad", tablet: "tablet", clock: "clock",
  node: "seat node", host: "floor", table: "table" };

// A wall-clock time with milliseconds (the browser's time zone), and the table's clock as
// seconds since the first input of the hand (exact between inputs).
const wall = (ts) => {
  const d = new Date(ts * 1000);
  return `${d.toLocaleTimeString("en-GB", { hour12: false })}.${String(d.getMilliseconds()).padStart(3, "0")}`;
};
const since = (at, first) => (at === null || first === null ? "" : `+${(at - first).toFixed(3)} s`);

function outcomeOf(e) {
  if (e.outcome === "rejected") {
    return h("span", { class: "t-outcome refused" }, "refused ",
      h("span", { class: "rule" }, e.rule || "no rule"));
  }
  if (e.outcome === "accepted") {
    return h("span", { class: "t-outcome accepted" }, `accepted → #${e.results.join(", #")}`);
  }
  if (e.outcome === "none") return h("span", { class: "t-outcome none" }, "no event");
  return e.rule ? h("span", { class: "rule" }, e.rule) : null;
}

function entryRow(e, first) {
  const classes = ["t-entry", e.category, e.caused_by === null ? "" : "caused",
    e.outcome === "rejected" ? "refused" : ""].filter(Boolean).join(" ");
  return h("li", { class: classes, "data-seq": String(e.seq), "data-kind": e.kind,
    "data-outcome": e.outcome || null },
  h("span", { class: "t-seq" }, `#${e.seq}`),
  h("time", { class: "t-time", datetime: new Date(e.ts * 1000).toISOString() }, wall(e.ts)),
  h("span", { class: "t-clock" }, since(e.at, first)),
  h("span", { class: `t-source ${e.source}` },  // a caused event: its input's, said above
    e.caused_by === null ? SOURCES[e.source] || e.source : ""),
  h("span", { class: "t-what" }, e.what,
    e.intent ? h("span", { class: "t-intent" }, ` ${e.intent}`) : null,
    e.card ? h("span", { class: "t-card" }, ` ${e.card}`) : null),
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
    render(await api(`${handPath()}/timeline`));
  } catch (err) {
    if (err.status === 401) { panel.signOut("That token is not recognised."); return; }
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
    const response = await bridgeRequest(session.token, `${handPath()}/timeline.${format}`);
    await saveAs(response, `timeline.${format}`);
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

const panel = signInPanel("t", { opened: () => load() });

document.addEventListener("DOMContentLoaded", () => {
  const query = new URLSearchParams(location.search);
  pick(query.get("table"), Number(query.get("hand")));
  $("t-pick").addEventListener("submit", (e) => {
    e.preventDefault();
    pick($("t-table").value.trim(), Number($("t-hand").value));
    load();
  });
  $("t-download").addEventListener("click", (e) => download(e.currentTarget));
  panel.start();
});
