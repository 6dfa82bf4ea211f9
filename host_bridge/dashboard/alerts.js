// Pitboss floor page: the alert list, first on the page, so a floor person sees in five
// seconds which table needs them. GET /api/v1/alerts at sign-in (and after a reconnection),
// then the feed's "alert" (raised or changed, e.g. acknowledged) and "alert_cleared"
// items. Each alert names its table (a click opens the table view), since when (relative,
// kept live by the page's one-second tick), what is wrong and what clears it. Acknowledge
// (floor, director, admin) posts /api/v1/alerts/{id}/ack; an acknowledged alert stays,
// dimmed, until its condition clears. A bridge without the alerts route (404) shows none.
"use strict";

const SEVERITY_RANK = { high: 3, medium: 2, low: 1 };
const ACK_ROLES = new Set(["floor", "director", "admin"]);

const alerts = {
  byId: new Map(),   // id -> Alert as the bridge last sent it
  available: true,   // false once the bridge answered 404: it has no alert list
  error: "",         // why the list could not be read or an alert not acknowledged
  acking: new Set(), // ids with an acknowledgement on its way
  index: null,       // table id -> its alerts, most urgent first (built when asked)
};

// Unacknowledged first, then the most severe, then the newest.
function alertOrder(a, b) {
  return (Boolean(a.acked_by) - Boolean(b.acked_by))
    || (SEVERITY_RANK[b.severity] || 0) - (SEVERITY_RANK[a.severity] || 0)
    || (b.since || 0) - (a.since || 0);
}

async function loadAlerts() {
  try {
    const body = await api("/alerts");
    noteServerTime(body.server_time);
    const before = new Set(alerts.byId.keys());
    alerts.byId = new Map(body.data.map((a) => [a.id, a]));
    alerts.available = true;
    alerts.error = "";
    const touched = new Set([...before].map(tableOfAlert).concat(body.data.map((a) => a.table)));
    alertsChanged(touched);
  } catch (err) {
    if (err.status === 401) { signOut(err.message); return; }
    alerts.available = err.status !== 404;
    alerts.error = alerts.available ? `The alerts could not be read: ${err.message}` : "";
    alertsChanged([]);
  }
}

// The list changed: its index is stale; the list and the named tables' cards re-render.
function alertsChanged(tables) {
  alerts.index = null;
  touchAlerts(tables);
}

function tableOfAlert(id) {
  const alert = alerts.byId.get(id);
  return alert ? alert.table : null;
}

// A feed item about an alert: raised or changed, or cleared.
function takeAlertItem(item) {
  if (item.type === "alert" && item.alert) {
    const old = alerts.byId.get(item.alert.id);
    alerts.byId.set(item.alert.id, item.alert);
    alertsChanged([item.alert.table, old && old.table]);
  } else if (item.type === "alert_cleared") {
    const table = tableOfAlert(item.id);
    alerts.byId.delete(item.id);
    alerts.acking.delete(item.id);
    alertsChanged([table]);
  }
}

// The alerts of one table, most urgent first (for its card, its sort and its view); the
// index is built once per change, not once per card.
function alertsOf(tableId) {
  if (!alerts.index) {
    alerts.index = new Map();
    for (const a of [...alerts.byId.values()].sort(alertOrder)) {
      if (!alerts.index.has(a.table)) alerts.index.set(a.table, []);
      alerts.index.get(a.table).push(a);
    }
  }
  return alerts.index.get(tableId) || [];
}

async function acknowledge(id) {
  alerts.acking.add(id);
  touchAlerts([]);
  try {
    const alert = await api(`/alerts/${encodeURIComponent(id)}/ack`, { method: "POST" });
    alerts.byId.set(alert.id, alert);
    alerts.error = "";
  } catch (err) {
    if (err.status === 401) { signOut(err.message); return; }
    if (err.status === 404) alerts.byId.delete(id); // cleared meanwhile: nothing to do
    else alerts.error = `Not acknowledged: ${err.message}`;
  }
  alerts.acking.delete(id);
  alertsChanged([tableOfAlert(id)]);
}

function sinceNode(epoch, prefix = "") {
  return h("time", {
    class: "since", dataset: { since: epoch, prefix },
    datetime: new Date(epoch * 1000).toISOString(),
    title: new Date(epoch * 1000).toLocaleString("en-GB"),
  }, `${prefix}${agoText(serverNow() - epoch)}`);
}

function alertItem(a) {
  const acked = Boolean(a.acked_by);
  const where = a.table
    ? h("button", { type: "button", class: "alert-table", dataset: { show: a.table },
      title: `Open table ${a.table}` }, a.table)
    : h("span", { class: "alert-table floor-wide" }, "Floor");
  const ack = acked
    ? h("p", { class: "acked" }, `Acknowledged by ${a.acked_by} `,
      a.acked_at ? sinceNode(a.acked_at) : null)
    : ACK_ROLES.has(state.role)
      ? h("button", { type: "button", class: "ack", dataset: { ack: a.id },
        disabled: alerts.acking.has(a.id), "aria-busy": alerts.acking.has(a.id) ? "true" : null,
        "aria-label": `Acknowledge: ${a.text}` }, "Acknowledge")
      : null;
  return h("li", {
    class: `alert sev-${a.severity}${acked ? " acked" : ""}`,
    dataset: { alert: a.id, severity: a.severity, kind: a.kind, table: a.table },
  },
  h("span", { class: "sev", title: `${a.severity} severity` }, a.severity.toUpperCase()),
  where,
  h("div", { class: "alert-body" },
    h("p", { class: "alert-text" }, a.text),
    h("p", { class: "alert-action" }, a.action)),
  h("div", { class: "alert-side" }, sinceNode(a.since), ack));
}

function renderAlerts() {
  const section = $("alerts");
  section.hidden = !alerts.available;
  if (section.hidden) return;
  const list = [...alerts.byId.values()].sort(alertOrder);
  const open = list.filter((a) => !a.acked_by);
  const high = open.filter((a) => a.severity === "high").length;
  $("alerts-count").textContent = list.length
    ? `${open.length} open${high ? ` · ${high} high` : ""}`
      + `${list.length > open.length ? ` · ${list.length - open.length} acknowledged` : ""}`
    : "";
  section.dataset.worst = open.length ? open[0].severity : "none";
  $("alerts-none").hidden = list.length > 0 || Boolean(alerts.error);
  $("alerts-error").textContent = alerts.error;
  patchChildren($("alert-list"), list.map(alertItem));
}

// Every live relative time and countdown on the page, once a second, text only.
function tickTimes() {
  const now = serverNow();
  for (const el of document.querySelectorAll("time[data-since]")) {
    const text = `${el.dataset.prefix || ""}${agoText(now - Number(el.dataset.since))}`;
    if (el.textContent !== text) el.textContent = text;
  }
  for (const el of document.querySelectorAll("[data-ends]")) {
    const text = clockText(Number(el.dataset.ends) - now);
    if (el.textContent !== text) el.textContent = text;
  }
}

function forgetAlerts() {
  Object.assign(alerts, { byId: new Map(), available: true, error: "", acking: new Set() });
  $("alert-list").replaceChildren();
}
