// Pitboss floor dashboard: today's rake per table (issue 18), from GET /api/v1/rake (the
// UTC day, the hands the bridge stored), read again when a hand ends. The floor's roles
// only; the CSV is the cashier's copy of the same ledger. Loaded before app.js, whose `h`,
// `api`, `chips`, `state` and `COMMAND_ROLES` it uses.
"use strict";

const rake = { body: null, running: false, again: false };

async function loadRake() {
  if (!COMMAND_ROLES.has(state.role)) return;
  if (rake.running) { rake.again = true; return; }
  rake.running = true;
  do {
    rake.again = false;
    try {
      rake.body = await api("/rake");
    } catch (err) {
      rake.body = { error: err.message };
    }
  } while (rake.again);
  rake.running = false;
  renderRake();
}

function renderRake() {
  const section = $("rake");
  section.hidden = !COMMAND_ROLES.has(state.role) || !rake.body;
  if (section.hidden) return;
  const body = rake.body;
  $("rake-title").textContent = body.day ? `Rake today (${body.day}, UTC)` : "Rake today";
  let content;
  if (body.error) content = h("p", { class: "form-error" }, body.error);
  else if (!body.data.length) content = h("p", { class: "empty" }, "No hand has ended today.");
  else {
    const totals = Object.entries(body.totals).map(([unit, n]) => `${chips(n)} ${unit}`);
    content = h("table", { class: "rake-table" },
      h("thead", {}, h("tr", {}, ["Table", "Hands", "Raked", "Rake"].map((k) => h("th",
        { scope: "col", class: k === "Table" ? null : "num" }, k)))),
      h("tbody", {}, body.data.map((row) => h("tr", { dataset: { table: row.table_id } },
        h("th", { scope: "row" }, row.table_id), h("td", { class: "num" }, row.hands),
        h("td", { class: "num" }, row.raked_hands),
        h("td", { class: "num" }, `${chips(row.rake)} ${row.unit}`)))),
      h("tfoot", {}, h("tr", {}, h("th", { scope: "row", colspan: 3 }, "Total"),
        h("td", { class: "num" }, totals.join(" · ")))));
  }
  patchChildren($("rake-body"), [content]);
}

async function downloadRakeCsv() {
  try {
    await saveAs(await bridgeRequest(state.token, "/rake?format=csv"),
      `rake-${(rake.body && rake.body.day) || "today"}.csv`);
  } catch (err) {
    rake.body = { ...(rake.body || {}), error: `The CSV could not be fetched: ${err.message}` };
    renderRake();
  }
}

function wireRake() {
  $("rake-csv").addEventListener("click", downloadRakeCsv);
}

function forgetRake() {
  Object.assign(rake, { body: null, again: false });
  $("rake").hidden = true;
}
