// Pitboss floor page: the helpers every module of the page shares, beside client.js's (the
// DOM builder, the bridge's requests): a patcher that keeps unchanged nodes, number and
// time formats, the API client. Plain JavaScript, no build step: each dashboard/*.js file
// is a classic script loaded with `defer` in index.html's order, so the names below are
// globals to the ones after it. The API client reads the bearer token from app.js's
// `state` when it is called.
"use strict";

// Re-rendering builds fresh nodes; patch() carries over only what differs, so a button
// under the pointer stays the same element while the table it belongs to is busy (a click
// on a button replaced between mousedown and mouseup would be lost), and an unchanged card
// costs one comparison. Buttons carry their command in data attributes and one delegated
// listener reads them.
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

// ------------------------------------------------------------------ formats
// one formatter for every number (toLocaleString("en-US") builds one per call: 2,000 of
// them for 200 full cards' first render); the same text
const CHIP_FORMAT = new Intl.NumberFormat("en-US");
const chips = (n) => (n === null || n === undefined ? "–" : CHIP_FORMAT.format(Number(n)));

// "12:05" or "1:02:05"; a clock never shows a negative time.
function clockText(seconds) {
  if (seconds === null || seconds === undefined || Number.isNaN(seconds)) return "–";
  const s = Math.max(0, Math.ceil(seconds));
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return hh ? `${hh}:${String(mm).padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
}

// "just now", "45 s ago", "3 min ago", "2 h 5 min ago": how long a condition has lasted.
function agoText(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 5) return "just now";
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  const mm = Math.floor((s % 3600) / 60);
  return `${Math.floor(s / 3600)} h${mm ? ` ${mm} min` : ""} ago`;
}

const ordinal = (n) => {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th");
  return `${n}${suffix}`;
};

// Table ids in the order a person counts them: t2 before t10. One collator for every
// comparison: localeCompare with options builds a new one per call, which made sorting 200
// tables on each animation frame the page's main cost under a busy feed.
const TABLE_ORDER = new Intl.Collator(undefined, { numeric: true });
const byTableId = (a, b) => TABLE_ORDER.compare(a, b);

// ------------------------------------------------------------------ the bridge's clock
// Times from the bridge (epoch seconds) are compared with the bridge's own "now": the
// offset is taken from each response's server_time, so a browser whose clock is off
// still counts down and ages alerts right.
const serverClock = { offset: 0 };

function noteServerTime(serverTime) {
  if (typeof serverTime === "number") serverClock.offset = serverTime - Date.now() / 1000;
}

const serverNow = () => Date.now() / 1000 + serverClock.offset;

// ------------------------------------------------------------------ HTTP
// The JSON of the bridge's answer to `path`, with the signed-in token (app.js's `state`);
// an ApiError (client.js) if there is none.
async function api(path, options = {}) {
  const response = await bridgeRequest(state.token, path, options);
  try { return await response.json(); } catch { return null; }
}
