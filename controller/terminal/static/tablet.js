"use strict";
// The dealer's tablet: draws the table's Screen (GET /api/screen, then the /api/stream
// Server-Sent Events) and sends each tap to POST /api/command with the screen's `turn`, so a
// tap made on a screen the table has moved past is refused rather than misapplied.
// No betting rule lives here: the buttons are the screen's `actions`, the amounts are the
// engine's (to_call, min_raise_to, max_raise_to), and the table says why it refuses.
// The sheets over the table (correction, race card, deck, straddle) are in sheets.js.

const $ = (id) => document.getElementById(id);
const SEATS = 10;
const VARIANTS = { NT: "No-Limit Hold'em", PO: "Pot-Limit Omaha", FT: "Fixed-Limit Hold'em" };
const SUITS = { s: ["♠", "spade"], h: ["♥", "heart"], d: ["♦", "diamond"], c: ["♣", "club"] };
const RANKS = ["A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3", "2"];
const STREETS = { 0: "Preflop", 3: "Flop", 4: "Turn", 5: "River" };
const CHIP_COLOURS = {
  white: "#eceff1", red: "#c62828", green: "#2e7d32", black: "#263238", purple: "#6a1b9a",
  yellow: "#f9a825", orange: "#ef6c00", grey: "#8d99a6", gray: "#8d99a6", pink: "#d81b60",
  blue: "#1565c0", brown: "#6d4c41",
};
const LIGHT_CHIPS = new Set(["white", "yellow", "grey", "gray"]);
const ACTION_WORDS = {
  fold: "Fold", check: "Check", call: "Call", bet_raise: "Bet/raise to", show: "Show",
  muck: "Muck", kill: "Killed",
};
const NEEDS_SEAT = { button: "Button here", sit_out: "Sit out / back", race_card: "Race card" };

let screen = null; // the screen drawn
let seq = 0; // its number: an older frame is never drawn over a newer one
let busy = false; // a tap is on its way: no second tap until it is answered
let selected = null; // the seat tapped, for a seat's command or an action out of turn
let entry = ""; // the amount keyed
let prefilled = false; // the entry holds the minimum raise, put there for the dealer
let prefillFor = "";
let bbMode = false;
let pushed = []; // chips tapped for one push
let sheet = null; // the open sheet: "correct", "race", "deck"
let picked = null; // the log line picked for a correction
let said = ""; // the message last drawn from a screen

// ------------------------------------------------------------------ small helpers
function fmt(n) {
  return n === null || n === undefined ? "–" : Number(n).toLocaleString("en-US");
}

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function short(value) {
  if (value >= 1000 && value % 1000 === 0) return `${value / 1000}K`;
  return String(value);
}

function clock(seconds) {
  if (seconds === null || seconds === undefined) return "–";
  const m = Math.floor(seconds / 60);
  const s = String(seconds % 60).padStart(2, "0");
  return `${m}:${s}`;
}

function cardNode(text, small) {
  const rank = text.slice(0, -1);
  const [symbol, suit] = SUITS[text.slice(-1).toLowerCase()] || ["?", "unknown"];
  const node = el("div", `card ${suit}${small ? " card-small" : ""}`);
  node.dataset.card = text;
  node.append(el("span", "card-rank", rank === "T" ? "10" : rank), el("span", "card-suit", symbol));
  return node;
}

function offered(verb) {
  return screen !== null && screen.actions.includes(verb);
}

function seatLine(number) {
  return screen && screen.seats.find((s) => s.seat === number);
}

// ------------------------------------------------------------------ talking to the table
async function send(command) {
  if (busy || screen === null) return;
  busy = true;
  document.body.classList.add("busy");
  try {
    const response = await fetch("/api/command", {
      method: "POST",
      headers: { "content-type": "application/json" },
      credentials: "same-origin",
      body: JSON.stringify({ ...command, turn: screen.turn }),
    });
    if (response.status === 401) {
      window.location.assign("/login");
      return;
    }
    const data = await response.json();
    if (!response.ok) {
      tell(false, null, data.error || `the table answered ${response.status}`);
      return;
    }
    if (data.reply.accepted) {
      selected = null;
      pushed = [];
      prefillFor = "";
      closeSheet();
    }
    if (!draw(data.screen)) paint(); // the stream drew it first: show what was reset
    tell(data.reply.accepted, data.reply.rule, data.reply.message);
    said = `${data.reply.accepted}|${data.reply.line}`; // the stream's copy is not new
  } catch (error) {
    tell(false, null, "the table did not answer: check the tablet's network and tap again");
  } finally {
    busy = false;
    document.body.classList.remove("busy");
  }
}

function link(state, text) {
  const node = $("link");
  node.dataset.state = state;
  node.querySelector("span").textContent = text;
}

function listen() {
  const stream = new EventSource("/api/stream");
  stream.addEventListener("open", () => link("live", "Live"));
  stream.addEventListener("screen", (event) => {
    link("live", "Live");
    draw(JSON.parse(event.data));
  });
  stream.addEventListener("error", async () => {
    link("lost", "Reconnecting");
    if (stream.readyState !== EventSource.CLOSED) return; // the browser tries again
    const answer = await fetch("/api/screen", { credentials: "same-origin" }).catch(() => null);
    if (answer && answer.status === 401) {
      window.location.assign("/login");
      return;
    }
    setTimeout(listen, 1000);
  });
}

async function start() {
  wire();
  const answer = await fetch("/api/screen", { credentials: "same-origin" });
  if (answer.status === 401) {
    window.location.assign("/login");
    return;
  }
  draw(await answer.json());
  listen();
}

// ------------------------------------------------------------------ the message line
function tell(accepted, rule, text) {
  const box = $("message");
  box.dataset.state = accepted ? "ok" : "refused";
  const pill = $("message-rule");
  pill.hidden = !rule;
  pill.textContent = rule || "";
  $("message-text").textContent = text.charAt(0).toUpperCase() + text.slice(1);
  box.classList.remove("flash");
  void box.offsetWidth; // restart the flash for a repeated answer
  box.classList.add("flash");
}

function toldBy(s) {
  // the screen's last reply: "BET-4: a raise must be ..." (or a sentence without a rule)
  const key = `${s.accepted}|${s.message}`;
  if (key === said || s.accepted === null) return;
  said = key;
  const match = /^([A-Z][A-Z0-9]*-[0-9][0-9.]*): (.*)$/s.exec(s.message);
  tell(s.accepted, match ? match[1] : null, match ? match[2] : s.message);
}

// ------------------------------------------------------------------ drawing
function draw(s) {
  if (s.seq <= seq) return false;
  seq = s.seq;
  screen = s;
  paint();
  return true;
}

function paint() {
  // the screen held, with what is being keyed and the seat tapped
  const s = screen;
  document.body.dataset.turn = s.turn;
  document.body.dataset.seq = String(s.seq);
  document.body.dataset.stage = s.stage;
  if (selected !== null && !seatLine(selected)) selected = null;
  drawBar(s);
  drawTable(s);
  drawTurn(s);
  drawPrompt(s);
  drawEntry(s);
  drawButtons(s);
  drawTray(s);
  if (sheet !== null) drawSheet();
  toldBy(s);
}

function drawBar(s) {
  $("hand-no").textContent = s.hand_no ? `#${s.hand_no}` : "–";
  $("house-block").hidden = !s.house; // the house file played: game, stakes, rake, straddles
  $("house").textContent = s.house;
  $("house").title = s.house;
  $("game").textContent = VARIANTS[s.variant] || s.variant;
  $("stakes").textContent = `${fmt(s.small_blind)} / ${fmt(s.big_blind)}` + (s.ante ? ` · ante ${fmt(s.ante)}` : "");
  $("level").textContent = `Level ${s.level}`;
  $("level-clock").textContent = s.level_seconds_left === null ? "untimed" : clock(s.level_seconds_left);
  $("level-clock").classList.toggle("muted", s.level_seconds_left === null);
  $("paused").hidden = !s.paused;
  const shot = Number.parseInt(s.shot_clock, 10);
  $("shot-clock").textContent = s.shot_clock || "–";
  $("shot").dataset.level = Number.isNaN(shot) ? "off" : shot <= 3 ? "red" : shot <= 10 ? "amber" : "green";
}

function place(number, radiusX, radiusY) {
  // seat 1 at the dealer's left (bottom left), clockwise to seat 10 at the dealer's right
  const angle = ((120 + ((number - 1) * 300) / (SEATS - 1)) * Math.PI) / 180;
  return [50 + radiusX * Math.cos(angle), 50 + radiusY * Math.sin(angle)];
}

function shownCards(s) {
  const shown = {};
  for (const line of s.log) {
    if (line.action === "show") shown[line.seat] = line.cards;
  }
  return shown;
}

function drawTable(s) {
  const street = STREETS[s.board.length] || "";
  $("street").textContent = s.stage === "playing" || s.stage === "showdown" ? street : stageName(s.stage);
  const board = $("board");
  board.replaceChildren();
  for (let i = 0; i < 5; i += 1) {
    board.append(i < s.board.length ? cardNode(s.board[i]) : el("div", "card card-slot"));
  }
  $("pot").textContent = fmt(s.pot_total);
  const pots = $("pots");
  pots.replaceChildren();
  if (s.pots.length > 1) {
    s.pots.forEach((amount, i) => pots.append(el("span", "side-pot", `${i ? `Side ${i}` : "Main"} ${fmt(amount)}`)));
  }
  const shown = shownCards(s);
  const seats = $("seats");
  const bets = $("bets");
  seats.replaceChildren();
  bets.replaceChildren();
  for (let number = 1; number <= SEATS; number += 1) {
    const line = seatLine(number);
    const [x, y] = place(number, 40.5, 41);
    const node = el("button", "seat");
    node.style.left = `${x}%`;
    node.style.top = `${y}%`;
    node.dataset.seat = String(number);
    if (!line) {
      node.classList.add("seat-empty");
      node.disabled = true;
      node.append(el("span", "seat-no", String(number)), el("span", "seat-open", "open"));
      seats.append(node);
      continue;
    }
    const states = [];
    if (line.to_act) states.push("to-act");
    if (line.folded) states.push("folded");
    if (line.all_in) states.push("all-in");
    if (line.sitting_out) states.push("out");
    if (line.in_hand) states.push("in-hand");
    if (number === selected) states.push("selected");
    if (number === s.to_show) states.push("to-show");
    node.dataset.state = states.join(" ");
    const top = el("div", "seat-top");
    top.append(el("span", "seat-no", String(number)), el("span", "seat-name", line.player));
    if (line.button) top.append(el("span", "dealer-button", "D"));
    const stack = el("div", "seat-stack", fmt(line.stack));
    const tags = el("div", "seat-tags");
    if (line.to_act) tags.append(el("span", "tag tag-act", "TO ACT"));
    if (line.all_in) tags.append(el("span", "tag tag-allin", "ALL-IN"));
    if (line.folded) tags.append(el("span", "tag tag-fold", "FOLDED"));
    if (line.sitting_out) tags.append(el("span", "tag tag-out", "SITTING OUT"));
    if (number === s.to_show) tags.append(el("span", "tag tag-act", "TO SHOW"));
    node.append(top, stack, tags);
    if (shown[number]) {
      const cards = el("div", "seat-cards");
      shown[number].forEach((c) => cards.append(cardNode(c, true)));
      node.append(cards);
    }
    seats.append(node);
    if (line.bet > 0) {
      const [bx, by] = place(number, 26, 25);
      const bet = el("div", "bet");
      bet.dataset.seat = String(number);
      bet.style.left = `${bx}%`;
      bet.style.top = `${by}%`;
      bet.append(el("i", "bet-chip"), el("span", "bet-amount", fmt(line.bet)));
      bets.append(bet);
    }
  }
}

function stageName(stage) {
  return {
    idle: "Between hands", dealing: "Dealing", playing: "", showdown: "Showdown",
    awarding: "Pot to push", colour_up: "Colour-up", enrolling: "Enrolling a deck",
  }[stage] || stage;
}

function drawTurn(s) {
  const who = $("turn-who");
  const line = s.to_act !== null ? seatLine(s.to_act) : null;
  who.textContent = line ? `Seat ${line.seat} · ${line.player} to act` : stageName(s.stage) || "Waiting for the board";
  $("to-call").textContent = s.to_act !== null ? fmt(s.to_call) : "–";
  $("min-raise").textContent = fmt(s.min_raise_to);
  $("max-raise").textContent = fmt(s.max_raise_to);
  const chosen = $("selected");
  chosen.hidden = selected === null;
  chosen.textContent = selected === null ? "" : `Seat ${selected} ✕`;
  $("turn").dataset.acting = line ? "yes" : "no";
  $("turn-note").textContent = note(s);
}

function note(s) {
  if (selected !== null && s.to_act !== null && selected !== s.to_act) {
    return `Seat ${selected} is not to act: an action now is out of turn.`;
  }
  switch (s.stage) {
    case "idle": return "Deal when the shuffle is done.";
    case "dealing": return "Deal the hole cards over the seat readers.";
    case "playing": return s.to_act === null ? "Burn, then deal the board over the board reader." : "";
    case "showdown": return s.to_show ? `Seat ${s.to_show} shows or mucks.` : "";
    case "awarding": return "Push the pot to the winner, then Deal.";
    case "colour_up": return s.colour_up || "";
    case "enrolling": return s.enrolling || "";
    default: return "";
  }
}

function drawPrompt(s) {
  const box = $("prompt");
  const prompt = s.prompt;
  box.hidden = prompt === null;
  document.body.classList.toggle("prompting", prompt !== null);
  if (prompt === null) return;
  $("prompt-rule").textContent = prompt.rule || "";
  $("prompt-rule").hidden = !prompt.rule;
  $("prompt-kind").textContent = prompt.seat ? `Seat ${prompt.seat}` : "The table asks";
  $("prompt-text").textContent = prompt.text;
  const choices = $("prompt-choices");
  choices.replaceChildren();
  prompt.choices.forEach((choice) => {
    const button = el("button", "btn btn-choice");
    button.dataset.option = choice.key;
    button.append(el("span", "choice-text", choice.text));
    if (choice.rule) button.append(el("span", "rule rule-small", choice.rule));
    button.addEventListener("click", () => send({ verb: "choose", option: choice.key }));
    choices.append(button);
  });
}

function amountIn(value) {
  // chips as the entry shows them (in big blinds when the BB toggle is on)
  if (value === null || value === undefined) return "";
  if (!bbMode) return String(value);
  const bb = value / screen.big_blind;
  return Number.isInteger(bb) ? String(bb) : String(Math.round(bb * 100) / 100);
}

function fixedSize(s) {
  // fixed limit (FL-2): the one size a bet or raise may be, the only one offered; null
  // elsewhere, and while a correction is keyed (its amount is the dealer's to key)
  const one = s.variant === "FT" && s.to_act !== null && s.min_raise_to !== null &&
    s.min_raise_to === s.max_raise_to;
  return one && sheet !== "correct" ? s.min_raise_to : null;
}

function drawEntry(s) {
  const key = `${s.hand_no}|${s.stage}|${s.to_act}|${s.min_raise_to}`;
  const fixed = fixedSize(s);
  if (key !== prefillFor || (fixed !== null && entry !== amountIn(fixed))) {
    prefillFor = key;
    entry = s.min_raise_to !== null && s.to_act !== null ? amountIn(s.min_raise_to) : "";
    prefilled = entry !== "";
  }
  for (const button of document.querySelectorAll("#numpad [data-key]")) {
    button.disabled = fixed !== null; // nothing to key: the limit is the size
  }
  $("entry").textContent = entry === "" ? "0" : bbMode ? entry : fmt(Number(entry));
  $("entry").classList.toggle("prefilled", prefilled);
  $("entry-unit").textContent = bbMode ? `BB of ${fmt(s.big_blind)}` : "chips";
  $("bb-toggle").setAttribute("aria-pressed", String(bbMode));
  document.querySelector('[data-key="."]').disabled = !bbMode || fixed !== null;
  $("fill-min").disabled = s.min_raise_to === null;
  $("fill-max").disabled = s.max_raise_to === null || fixed !== null;
  $("fill-min").textContent = fixed !== null ? "LIMIT" : "MIN";
  $("fill-max").textContent = s.variant === "PO" ? "POT" : "MAX"; // PL-3: the pot is the most
}

function amount() {
  // the command's amount field for what is keyed, or null with the reason told
  if (entry === "" || Number(entry) === 0) {
    tell(false, null, "key the amount on the number pad first");
    return null;
  }
  return bbMode ? { bb: Number(entry) } : { amount: Number.parseInt(entry, 10) };
}

function entryText() {
  return bbMode ? `${entry || 0} BB` : fmt(Number(entry || 0));
}

function drawButtons(s) {
  for (const button of document.querySelectorAll("#actions [data-verb], #tools [data-verb]")) {
    const verb = button.dataset.verb;
    button.hidden = !s.actions.includes(verb);
  }
  const betting = s.seats.some((x) => x.bet > 0) && s.stage === "playing";
  document.querySelector('[data-verb="call"]').textContent = `Call ${fmt(s.to_call)}`;
  document.querySelector('[data-verb="bet"]').textContent = `${betting ? "Raise to" : "Bet"} ${entryText()}`;
  const actor = s.to_act !== null ? seatLine(s.to_act) : null;
  document.querySelector('[data-verb="all_in"]').textContent = actor ? `All-in ${fmt(actor.stack)}` : "All-in";
  document.querySelector('[data-verb="deal"]').textContent =
    { idle: "Deal hand", awarding: "Push pot", colour_up: "Next step" }[s.stage] || "Deal";
  document.querySelector('[data-verb="show"]').textContent = s.to_show ? `Show seat ${s.to_show}` : "Show";
  document.querySelector('[data-verb="muck"]').textContent = s.to_show ? `Muck seat ${s.to_show}` : "Muck";
  document.querySelector('[data-verb="pause"]').textContent = s.paused ? "Resume" : "Pause";
  document.querySelector('[data-verb="count"]').textContent = s.stage === "colour_up" ? "Count chips" : "Count all-in";
  const actions = $("actions");
  actions.dataset.count = String([...actions.children].filter((b) => !b.hidden).length);
}

function drawTray(s) {
  const rack = $("chip-rack");
  if (rack.dataset.chips !== JSON.stringify(s.chips)) {
    rack.dataset.chips = JSON.stringify(s.chips);
    rack.replaceChildren();
    s.chips.forEach(([value, colour]) => {
      const chip = el("button", "chip");
      chip.dataset.chip = String(value);
      chip.style.setProperty("--chip", CHIP_COLOURS[colour.toLowerCase()] || colour);
      if (LIGHT_CHIPS.has(colour.toLowerCase())) chip.classList.add("chip-light");
      chip.append(el("span", "chip-value", short(value)));
      chip.title = `${fmt(value)} (${colour})`;
      chip.addEventListener("click", () => {
        pushed.push(value);
        drawTray(screen);
      });
      rack.append(chip);
    });
  }
  const open = s.actions.includes("chips");
  $("tray").dataset.open = String(open);
  for (const chip of rack.children) chip.disabled = !open;
  const total = pushed.reduce((a, b) => a + b, 0);
  $("push-sum").textContent = pushed.length
    ? `${pushed.map(fmt).join(" + ")}${pushed.length > 1 ? ` = ${fmt(total)}` : ""}`
    : open ? "Tap chips, then Push" : "Chips: when a player acts";
  $("push").hidden = !open;
  $("push").disabled = pushed.length === 0;
  $("push").textContent = pushed.length ? `Push ${fmt(total)}` : "Push chips";
  $("push-clear").hidden = pushed.length === 0;
}

// ------------------------------------------------------------------ taps
function key(k) {
  if (k === "clear") {
    entry = "";
  } else if (k === "back") {
    entry = prefilled ? "" : entry.slice(0, -1);
  } else if (k === ".") {
    if (!bbMode || entry.includes(".")) return;
    entry = (prefilled || entry === "" ? "0" : entry) + ".";
  } else {
    const next = prefilled ? k.replace(/^0+/, "") : entry + k;
    if (next.replace(".", "").length > 10) return;
    entry = next === "" || /^0+$/.test(next) ? "" : next;
  }
  prefilled = false;
  drawEntry(screen);
  drawButtons(screen);
  if (sheet === "correct") drawSheet();
}

function verbTapped(verb) {
  const seat = selected === null ? {} : { seat: selected };
  if (verb in NEEDS_SEAT && selected === null) {
    tell(false, null, `tap the seat first, then ${NEEDS_SEAT[verb]}`);
    return;
  }
  switch (verb) {
    case "bet": {
      const extra = amount();
      if (extra !== null) send({ verb, ...seat, ...extra });
      return;
    }
    case "chips":
      if (pushed.length) send({ verb, ...seat, chips: pushed });
      return;
    case "correct":
      openSheet("correct");
      return;
    case "race_card":
      openSheet("race");
      return;
    case "deck":
      openSheet("deck");
      return;
    case "straddle":
      if (selected === null) openSheet("straddle");
      else send({ verb, seat: selected });
      return;
    case "count":
      if (screen.stage === "colour_up") {
        if (selected === null) {
          tell(false, null, "tap the seat counted first, then key its chips and Count chips");
          return;
        }
        const count = Number.parseInt(entry, 10);
        if (!count) {
          tell(false, null, "key the number of chips counted on the number pad first");
          return;
        }
        send({ verb, seat: selected, amount: count });
        return;
      }
      send({ verb });
      return;
    default:
      send({ verb, ...seat });
  }
}

function wire() {
  for (const button of document.querySelectorAll("[data-verb]")) {
    button.addEventListener("click", () => verbTapped(button.dataset.verb));
  }
  for (const button of document.querySelectorAll("[data-key]")) {
    button.addEventListener("click", () => key(button.dataset.key));
  }
  $("seats").addEventListener("click", (event) => {
    const node = event.target.closest(".seat");
    if (!node || node.disabled) return;
    const number = Number(node.dataset.seat);
    selected = selected === number ? null : number;
    paint();
  });
  $("selected").addEventListener("click", () => {
    selected = null;
    paint();
  });
  $("bb-toggle").addEventListener("click", () => {
    const chips = entry === "" ? null : bbMode ? Number(entry) * screen.big_blind : Number(entry);
    bbMode = !bbMode;
    entry = chips === null ? "" : amountIn(chips);
    drawEntry(screen);
    drawButtons(screen);
  });
  $("fill-min").addEventListener("click", () => fill(screen.min_raise_to));
  $("fill-max").addEventListener("click", () => fill(screen.max_raise_to));
  $("push-clear").addEventListener("click", () => {
    pushed = [];
    drawTray(screen);
  });
  $("sheet-close").addEventListener("click", closeSheet);
}

function fill(value) {
  if (value === null) return;
  entry = amountIn(value);
  prefilled = false;
  drawEntry(screen);
  drawButtons(screen);
}

start();
