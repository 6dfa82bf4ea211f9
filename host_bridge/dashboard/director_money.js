// The director's money on the director's page (issue 19): re-entry (TOURN-4/6) and
// surrender (TOURN-15) for a player, each entry's bounty and knockouts (TOURN-17), a deal
// (ICM or chip-chop) shown before it is confirmed (TOURN-29), and who was paid what.
// Loaded after director.js and uses its helpers (tpath, money, chips, note, t) and side.js's
// and client.js's (api, h, session); it joins director.js's render() so it redraws with
// every refresh. The API decides; the page only hides what the role may not send.
"use strict";

const m = { version: null, deal: null };

async function moneyRender(s) {
  const actor = ACTORS.has(session.role);
  document.querySelectorAll("#t-money .director-only").forEach((n) => { n.hidden = !actor; });
  $("m-deal-form").hidden = !actor || s.stage !== "running";
  const key = `${s.id}:${s.version}:${s.stage}`;
  if (m.version === key) return;  // nothing changed since the last drawing
  m.version = key;
  try {
    const [b, p] = await Promise.all([api(tpath("/bounties")), api(tpath("/payouts"))]);
    renderBounties(b);
    renderPaid(p);
  } catch (err) {
    m.version = null;
    $("m-error").textContent = err.message;
  }
}

function renderBounties(b) {
  $("m-bounties-panel").hidden = !b.bounty;
  if (!b.bounty) return;
  $("m-bounty-rule").textContent = `Bounty ${money(b.bounty)} a head` + (b.progressive
    ? ` · progressive: ${b.progressive[0] / 100} % paid, ${b.progressive[1] / 100} % added`
    : "");
  $("m-bounties").replaceChildren(...b.players.slice(0, 60).map((r) => h("tr",
    { "data-player": r.player }, h("td", {}, r.entry), h("td", {}, r.status),
    h("td", {}, money(r.bounty)), h("td", {}, String(r.knockouts)),
    h("td", {}, money(r.won)))));
}

function renderPaid(p) {
  $("m-prize-table").textContent = p.prizes.length
    ? `Payout table: ${p.prizes.map((c, i) => `${i + 1}. ${money(c)}`).join(" · ")}` : "";
  $("m-deal-made").textContent = p.deal
    ? `Deal made (${p.deal.method === "icm" ? "ICM" : "chip-chop"}) by ${p.deal.by}`
      + ` (${p.deal.role}).` : "";
  $("m-paid").replaceChildren(...p.paid.slice(0, 60).map((r) => h("tr",
    { "data-player": r.player },
    h("td", {}, r.place === r.place_to ? String(r.place) : `${r.place}–${r.place_to}`),
    h("td", {}, r.player), h("td", {}, money(r.prize)), h("td", {}, money(r.bounties)),
    h("td", {}, money(r.total)))));
}

function showDeal(plan) {
  m.deal = plan;
  $("m-deal-preview").replaceChildren(...plan.players.map((r) => h("tr",
    { "data-player": r.player }, h("td", {}, r.player), h("td", {}, chips(r.stack)),
    h("td", {}, money(r.amount)))));
  $("m-deal-summary").textContent = `${plan.method === "icm" ? "ICM" : "Chip-chop"}: `
    + `${money(plan.pool)} shared by ${plan.players.length} players. Confirm to end the event.`;
  $("m-deal-shown").hidden = false;
}

async function previewDeal() {
  const method = $("m-deal-method").value;
  try {
    showDeal(await api(tpath(`/deal?method=${encodeURIComponent(method)}`)));
  } catch (err) {
    $("m-deal-shown").hidden = true;
    note(`Refused: ${err.message}`);
  }
}

function confirmDeal(button) {
  if (!m.deal) return;
  const amounts = Object.fromEntries(m.deal.players.map((r) => [r.player, r.amount]));
  act(button, tpath("/deal"), { method: m.deal.method, amounts }, () => {
    $("m-deal-shown").hidden = true;
    m.deal = null;
    return "Deal made; the tournament is over.";
  });
}

function playerAction(e, suffix, body, done) {
  const player = $("m-player").value.trim();
  if (!player) { note("Give a player id first."); return; }
  act(e.currentTarget, tpath(`/players/${encodeURIComponent(player)}${suffix}`), body,
    () => done(player));
}

// a deferred script runs once the page is parsed: its elements are there
{
  const base = window.render;  // director.js's: ours follows it on every refresh
  window.render = (s) => { base(s); moneyRender(s); };
  $("m-re-enter").addEventListener("click", (e) => playerAction(e, "/re-entry", {},
    (p) => `${p} re-entered with a full stack.`));
  $("m-surrender").addEventListener("click", (e) => playerAction(e, "/surrender",
    { chips: Number($("m-chips").value) }, (p) => `${p} handed in ${$("m-chips").value} chips.`));
  $("m-deal-preview-button").addEventListener("click", previewDeal);
  $("m-deal-confirm").addEventListener("click", (e) => confirmDeal(e.currentTarget));
  $("m-deal-cancel").addEventListener("click", () => {
    $("m-deal-shown").hidden = true;
    m.deal = null;
  });
}
