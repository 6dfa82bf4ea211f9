// The floor's discipline on the director's page (issue 19): a penalty for a player
// (PEN-1..7), the cancellation preview and its confirmation (CANCEL-*, CRASH-4), move
// slips to print (TOURN-19), the sit & go's drawn multiplier and payouts (SNG-3).
// Loaded after director.js and uses its globals (t, money, ACTORS) and side.js's and
// client.js's (session, api, bridgeRequest, $, h); it redraws on its own every second and
// a half. The API decides; the page only hides what the role may not send, and shows the
// refusal (with its rule) when one comes.
"use strict";

const fl = { key: null };
const fpath = (rest) => `/director/tournaments/${encodeURIComponent(t.tid)}${rest}`;

function floorSay(text) { $("f-note").textContent = text; }

function renderFloor(f) {
  const list = $("f-penalties");
  list.replaceChildren(...f.penalties.map((p) => h("li", {},
    `${p.player}: ${p.hands_left} hands to serve${p.warned ? ", warned" : ""} (${p.status})`)));
  const sng = f.sit_and_go;
  $("f-sng").textContent = !sng ? "" : sng.multiplier === null
    ? `Sit & go (${sng.format}): the multiplier is drawn at the start.`
    : `Sit & go (${sng.format}) multiplier ${sng.multiplier}x: prize pool ` +
      `${money(sng.prize_pool)}, paid ${sng.prizes.map(money).join(" / ")}.`;
  $("f-cancelled").textContent = f.cancelled
    ? `Cancelled (${f.cancelled.rule}) by ${f.cancelled.by}.` : "";
}

function renderPreview(p) {
  const body = $("f-preview");
  body.replaceChildren(...p.compensation.map((c) => h("tr", {},
    h("td", {}, c.player), h("td", {}, money(c.total)), h("td", {}, c.rule))));
  $("f-preview-rule").textContent = `${p.rule}: ${money(p.total)} in all.`;
}

async function floorRefresh() {
  if (!session.token || !t.tid) return;
  const actor = ACTORS.has(session.role);
  document.querySelectorAll("#t-floor .director-only").forEach((n) => { n.hidden = !actor; });
  try {
    const f = await api(fpath("/floor"));
    const key = JSON.stringify(f);
    if (key !== fl.key) { fl.key = key; renderFloor(f); }
  } catch (err) { floorSay(err.message); }
}

async function penaltyGiven(form) {
  const data = new FormData(form);
  try {
    await api(fpath("/penalties"), { method: "POST", body: JSON.stringify({
      player: data.get("player"), penalty: data.get("penalty"),
      count: Number(data.get("count") || 0), reason: data.get("reason") || "" }) });
    floorSay(`Penalty given to ${data.get("player")}.`);
  } catch (err) { floorSay(err.message); }
  floorRefresh();
}

async function previewCancel() {
  try {
    renderPreview(await api(fpath("/cancellation")));
    $("f-cancel").hidden = !ACTORS.has(session.role);
  } catch (err) { floorSay(err.message); }
}

async function confirmCancel() {
  try {
    renderPreview(await api(fpath("/cancellation"), { method: "POST",
      body: JSON.stringify({ cause: $("f-cause").value }) }));
    floorSay("The tournament is cancelled; its tables are closed.");
  } catch (err) { floorSay(err.message); }
  floorRefresh();
}

async function printSlips() {
  try {
    const page = await (await bridgeRequest(session.token, fpath("/move-slips"))).text();
    const url = URL.createObjectURL(new Blob([page], { type: "text/html" }));
    window.open(url, "_blank");
  } catch (err) { floorSay(err.message); }
}

document.addEventListener("DOMContentLoaded", () => {
  $("f-penalty-form").addEventListener("submit", (e) => { e.preventDefault();
    penaltyGiven(e.target); });
  $("f-preview-button").addEventListener("click", previewCancel);
  $("f-cancel").addEventListener("click", confirmCancel);
  $("f-slips").addEventListener("click", printSlips);
  setInterval(floorRefresh, 1500);
  floorRefresh();
});
