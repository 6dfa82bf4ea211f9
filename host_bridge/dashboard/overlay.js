// Pitboss broadcast overlay (issue 21): a streaming program's browser source, 1920x1080 on
// a transparent page. It follows WS /api/v1/broadcast/tables/<id>/feed (the broadcast role
// only; the whole hand runs hole_card_delay_s behind the table) and draws each player (cards,
// stack, bet, win and tie shares, outs on the turn; greyed once folded), the board and the
// pots. Rendering only: every number is the bridge's (the engine's betting state and its
// exact equities); nothing is worked out here. Loaded after common.js (h, $, chips,
// patchChildren, API).
//
// /overlay?table=t1#token=... : the token rides in the fragment, which no request carries;
// without one the page asks for it (kept for this tab, as the dashboard keeps its own).
"use strict";

const TOKEN_KEY = "pitboss.token"; // the dashboard's sign-in, for this tab only
const MAX_WAIT_S = 30; // the longest pause between two tries to reconnect
const SUIT = { s: "♠", h: "♥", d: "♦", c: "♣" };
const SUIT_NAME = { s: "spades", h: "hearts", d: "diamonds", c: "clubs" };
const RANKS = "23456789TJQKA";
const STREET = { preflop: "Preflop", flop: "Flop", turn: "Turn", river: "River" };
const RESULT = { ended: "Hand over", voided: "Hand voided", misdeal: "Misdeal" };

const o = { table: null, token: null, socket: null, retry: 0, timer: null, view: null };

// ------------------------------------------------------------------ formats
const pct = (share) => `${(share * 100).toFixed(1)}%`;
const rankText = (card) => (card[0] === "T" ? "10" : card[0]);
const byRank = (a, b) => RANKS.indexOf(b[0]) - RANKS.indexOf(a[0]) || a[1].localeCompare(b[1]);

// One card: its face, or its back when the broadcast does not have it (yet).
function cardEl(card, size) {
  if (!card) return h("span", { class: `o-card back ${size}`, "aria-label": "card not shown" });
  return h("span", {
    class: `o-card face ${size} suit-${card[1]}`, dataset: { card },
    "aria-label": `${rankText(card)} of ${SUIT_NAME[card[1]] || card[1]}`,
  }, h("span", { class: "o-rank" }, rankText(card)), h("span", { class: "o-suit" }, SUIT[card[1]] || card[1]));
}

// ------------------------------------------------------------------ status line
function say(text, kind) {
  const status = $("o-status");
  status.textContent = text || "";
  status.dataset.kind = kind || "info";
  status.hidden = !text;
}

// ------------------------------------------------------------------ drawing
function playerRow(p, hand) {
  const out = p.folded || p.mucked;
  const classes = ["o-player"];
  if (out) classes.push("folded");
  if (hand.to_act !== null && p.seat === hand.to_act && !out) classes.push("to-act");
  if (p.won > 0) classes.push("winner");
  const cards = p.cards ? p.cards : [null, null];
  const eq = p.equity;
  let odds;
  if (eq) {
    odds = [
      h("span", { class: "o-win", dataset: { field: "win" } }, pct(eq.win)),
      h("span", { class: "o-tie" }, "tie ", h("span", { dataset: { field: "tie" } }, pct(eq.tie))),
      h("progress", { class: "o-bar", max: "1000", value: String(Math.round((eq.win + eq.tie) * 1000)),
        "aria-label": "equity" }),
    ];
  } else {
    odds = [h("span", { class: "o-none" }, p.mucked ? "MUCK" : p.folded ? "FOLD" : "")];
  }
  const tags = [
    hand.button === p.seat ? h("span", { class: "o-button", title: "dealer button" }, "D") : null,
    p.all_in ? h("span", { class: "o-tag all-in" }, "ALL IN") : null,
    p.won > 0 ? h("span", { class: "o-tag won", dataset: { field: "won" } }, `WINS ${chips(p.won)}`) : null,
  ];
  const outs = eq && eq.outs.length
    ? h("p", { class: "o-outs", dataset: { field: "outs" } },
      h("span", { class: "o-outs-label" }, `OUTS ${eq.outs.length}`),
      [...eq.outs].sort(byRank).map((c) => h("span", { class: `o-out suit-${c[1]}`, dataset: { card: c } },
        `${rankText(c)}${SUIT[c[1]] || c[1]}`)))
    : null;
  return h("li", { class: classes.join(" "), dataset: { seat: p.seat, player: p.player, position: p.position } },
    h("div", { class: "o-hole" }, cards.map((c) => cardEl(c, "small"))),
    h("div", { class: "o-who" },
      h("p", { class: "o-name" }, h("span", { class: "o-name-text" }, p.player), tags),
      h("p", { class: "o-stack" }, h("span", { class: "o-seat" }, `Seat ${p.seat}`),
        h("span", { dataset: { field: "stack" } }, chips(p.stack))),
      p.shown ? h("p", { class: "o-shown" }, p.shown) : null),
    h("div", { class: "o-bet" }, p.bet > 0
      ? [h("span", { class: "o-bet-label" }, "BET"), h("span", { dataset: { field: "bet" } }, chips(p.bet))]
      : null),
    h("div", { class: "o-odds" }, odds),
    outs);
}

function infoParts(view, hand) {
  const blinds = `Blinds ${chips(hand.small_blind)} / ${chips(hand.big_blind)}`
    + (hand.ante ? ` · ante ${chips(hand.ante)}` : "");
  return [
    h("span", { class: "o-info-table" }, `Table ${view.table_id}`),
    h("span", { dataset: { field: "hand" } }, `Hand #${hand.hand_no}`),
    h("span", {}, blinds),
  ];
}

function potParts(hand) {
  if (hand.result !== "in_progress" && hand.pot_total === 0) return [];
  const parts = [h("p", { class: "o-pot-main" }, h("span", { class: "o-pot-label" }, "POT"),
    h("span", { dataset: { field: "pot" } }, chips(hand.pot_total)))];
  if (hand.pots.length > 1) {
    parts.push(h("p", { class: "o-pots", dataset: { field: "pots" } },
      hand.pots.map((amount, i) => `${i ? `Side ${i}` : "Main"} ${chips(amount)}`).join(" · ")));
  }
  return parts;
}

function render(view) {
  o.view = view;
  const hand = view ? view.hand : null;
  $("o-info").hidden = !hand;
  $("o-centre").hidden = !hand;
  if (!hand) {
    patchChildren($("o-players"), []);
    patchChildren($("o-board"), []);
    patchChildren($("o-pot"), []);
    if (view) {
      say(`Waiting for a hand at table ${view.table_id}: the overlay runs `
        + `${Math.round(view.delay_s)} s behind the table`, "wait");
    }
    return;
  }
  say("", "info");
  patchChildren($("o-info"), infoParts(view, hand));
  patchChildren($("o-players"), hand.players.map((p) => playerRow(p, hand)));
  const slots = [];
  for (let i = 0; i < 5; i += 1) {
    slots.push(i < hand.board.length ? cardEl(hand.board[i], "large") : h("span", { class: "o-slot" }));
  }
  patchChildren($("o-board"), slots);
  $("o-street").textContent = RESULT[hand.result]
    || (hand.stage === "showdown" ? "Showdown" : STREET[hand.street] || hand.street);
  patchChildren($("o-pot"), potParts(hand));
}

// ------------------------------------------------------------------ the feed
function connect() {
  clearTimeout(o.timer);
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}${API}/broadcast/tables/`
    + `${encodeURIComponent(o.table)}/feed`);
  o.socket = socket;
  if (!o.view || !o.view.hand) say("Connecting to the bridge…", "info");
  socket.addEventListener("open", () => socket.send(JSON.stringify({ token: o.token })));
  socket.addEventListener("message", (message) => {
    let item;
    try { item = JSON.parse(message.data); } catch { return; }
    if (item.type === "hello") {
      o.retry = 0;
      if (!o.view || !o.view.hand) say(`Connected to table ${o.table}; waiting for the view…`, "info");
    } else if (item.type === "broadcast") {
      render(item);
    }
  });
  socket.addEventListener("close", (closed) => onClose(socket, closed));
}

function onClose(socket, closed) {
  if (o.socket !== socket) return; // replaced by a new sign-in
  o.socket = null;
  const reason = closed.reason || "";
  if (closed.code === 4401) {
    refuse(`The bridge does not recognise this token${reason ? ` (${reason})` : ""}. `
      + "Sign in with a broadcast token.");
    return;
  }
  if (closed.code === 4403) {
    refuse(`Refused: ${reason || "this token may not see the broadcast view"}. `
      + "The overlay needs a token with the broadcast role.");
    return;
  }
  o.retry += 1;
  const wait = Math.min(MAX_WAIT_S, 2 ** (o.retry - 1));
  if (closed.code === 4404) {
    render(null);
    say(`Unknown table ${o.table}: ${reason || "it has not reported to this bridge"}. `
      + `Trying again in ${wait} s.`, "error");
  } else {
    say(`Connection to the bridge lost${reason ? ` (${reason})` : ""}; `
      + `reconnecting in ${wait} s.`, "down");
  }
  o.timer = setTimeout(connect, wait * 1000);
}

// A token the bridge refuses: nothing of the hand stays on the page, and no retry.
function refuse(message) {
  render(null);
  o.token = null;
  sessionStorage.removeItem(TOKEN_KEY);
  say(message, "error");
  $("o-sign-in").hidden = false;
}

// ------------------------------------------------------------------ start
function start() {
  o.table = new URLSearchParams(location.search).get("table");
  const given = new URLSearchParams(location.hash.slice(1)).get("token");
  o.token = given || sessionStorage.getItem(TOKEN_KEY);
  $("o-sign-in-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const token = $("o-token").value.trim();
    if (!token || !o.table) return;
    sessionStorage.setItem(TOKEN_KEY, token);
    $("o-token").value = "";
    $("o-sign-in").hidden = true;
    o.token = token;
    o.retry = 0;
    if (o.socket) o.socket.close();
    o.socket = null;
    connect();
  });
  if (!o.table) {
    say("Which table? Add ?table=<table id> to this page's address, e.g. /overlay?table=t1.",
      "error");
    return;
  }
  if (!o.token) {
    say("Sign in with a broadcast token to show the overlay.", "info");
    $("o-sign-in").hidden = false;
    $("o-token").focus();
    return;
  }
  connect();
}

start();
