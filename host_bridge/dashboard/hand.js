// Pitboss floor dashboard: the hand in play as the table's rules engine reports it, in its
// public state (a table's `hand` and `stakes`): whose turn, the amount to call, the raise
// limits, the board, the pots, each seat's stack and bet. Rendering only: every number is
// the state's own, and no betting rule is worked out here. Loaded before app.js, whose
// `h` and `chips` it uses.
"use strict";

const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };
const cardText = (c) => `${c[0] === "T" ? "10" : c[0]}${SUITS[c[1]] || c[1]}`;

function stakesText(stakes) {
  if (!stakes) return "–";
  const parts = [`${chips(stakes.small_blind)} / ${chips(stakes.big_blind)}`];
  if (stakes.straddle) parts.push(`straddle ${chips(stakes.straddle)}`);
  if (stakes.ante) parts.push(`ante ${chips(stakes.ante)}`);
  if (stakes.big_blind_ante) parts.push(`BB ante ${chips(stakes.big_blind_ante)}`);
  return parts.join(" · ");
}

// The hand in play as the table's engine reports it: whose turn, what it costs to call,
// the raise limits, the board and the pots. `seq` is the state's (from the feed; null
// when it was read over REST), `happened` a line about the latest action or board.
function handPanel(table, seq, happened) {
  const hand = table.hand;
  if (!hand) return null;
  const turn = hand.to_act !== null ? `Seat ${hand.to_act}`
    : hand.next_to_show !== null ? `Seat ${hand.next_to_show} to show`
      : { deal_hole: "dealing", deal_board: "dealing the board", showdown: "showdown",
        complete: "hand over" }[hand.stage] || "–";
  const raise = hand.min_raise_to === null ? "–"
    : hand.min_raise_to === hand.max_raise_to ? chips(hand.min_raise_to)
      : `${chips(hand.min_raise_to)} – ${chips(hand.max_raise_to)}`;
  const pots = hand.pots.length ? hand.pots.map((p, i) => `${i ? "side" : "main"} ${chips(p.amount)}`)
    .join(" · ") : "–";
  const rows = [
    ["To act", turn, "to-act"],
    ["To call", hand.to_act === null ? "–" : chips(hand.to_call), "to-call"],
    ["Raise to", hand.to_act === null ? "–" : raise, "raise-to"],
    ["Board", hand.board.length ? hand.board.map(cardText).join(" ") : "–", "board"],
    ["Pots", pots, "pots"],
    ["In the middle", chips(hand.pot_total), "pot-total"],
  ];
  return h("div", {
    class: "hand", dataset: seq === null ? { stage: hand.stage } : { seq, stage: hand.stage },
    "aria-label": `Hand in play at table ${table.id}`,
  },
  h("dl", { class: "facts" }, rows.map(([k, v, key]) => h("div", { class: "fact" },
    h("dt", {}, k), h("dd", { dataset: { hand: key } }, v)))),
  happened ? h("p", { class: "happened", dataset: { hand: "last" } }, `Last: ${happened}`) : null,
  ohhButton(table));
}

// The table's latest finished hand as Open Hand History, the JSON poker trackers read
// (issue 21): fetched with the token (a plain link cannot carry it) and saved as
// {table}-{hand}.ohh. The bridge decides which hole cards the token's role may see.
function ohhButton(table) {
  const n = table.hand_in_progress ? table.hand_no - 1 : table.hand_no;
  if (!(n >= 1)) return null;
  return h("button", {
    type: "button", class: "ohh", dataset: { ohhTable: table.id, ohhHand: n },
    title: "Download the hand as Open Hand History (JSON) for a poker tracker",
  }, `Hand #${n} as OHH`);
}

async function downloadOhh(button) {
  const { ohhTable, ohhHand } = button.dataset;
  const shown = button.parentElement.querySelector(".ohh-error");
  if (shown) shown.remove();
  try {
    const path = `/tables/${encodeURIComponent(ohhTable)}/hands/${ohhHand}/ohh`;
    await saveAs(await bridgeRequest(state.token, path), `${ohhTable}-${ohhHand}.ohh`);
  } catch (err) {
    button.after(h("span", { class: "ohh-error form-error", role: "alert" },
      `The hand could not be downloaded: ${err.message}`));
  }
}

document.addEventListener("click", (e) => {
  const button = e.target.closest("button[data-ohh-hand]");
  if (button) downloadOhh(button);
});

// One seat as the hand in play has it (the engine's: chips behind, the bet in front,
// folded, all-in), or as the table last reported it between hands.
function seatInHand(table, s) {
  const p = table.hand ? table.hand.players.find((x) => x.seat === s.seat) : undefined;
  const toAct = Boolean(table.hand) && s.seat === table.hand.to_act;
  const clocked = s.seat === table.clock_on_seat;
  return {
    stack: p ? p.stack : s.stack,
    name: h("span", { class: "player" }, h("span", { class: "name" }, s.player),
      toAct ? h("span", { class: "tag act" }, "to act") : null,
      clocked ? h("span", { class: "tag clock" }, "clock") : null,
      p && p.all_in ? h("span", { class: "tag all-in" }, "all-in") : null,
      p && p.folded ? h("span", { class: "tag fold" }, "folded") : null,
      p && p.bet ? h("span", { class: "bet", dataset: { bet: p.bet } }, `bet ${chips(p.bet)}`)
        : null),
    classes: `${toAct ? " to-act" : ""}${clocked ? " clocked" : ""}`
      + `${p && p.folded ? " folded" : ""}`,
  };
}
