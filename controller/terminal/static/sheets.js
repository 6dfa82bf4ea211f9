"use strict";
// The dealer's tablet: the sheets drawn over the table (a correction, a race card, a saved
// deck, a straddle's seat). Loaded before tablet.js, whose state and helpers these use when
// a sheet opens (the two share the page's global scope, as classic scripts do).
function openSheet(kind) {
  sheet = kind;
  picked = null;
  $("sheet").hidden = false;
  drawSheet();
  drawEntry(screen); // a correction keys its own amount, even in fixed limit
}

function closeSheet() {
  sheet = null;
  picked = null;
  $("sheet").hidden = true;
  if (screen !== null) drawEntry(screen);
}

function drawSheet() {
  const body = $("sheet-body");
  const foot = $("sheet-foot");
  body.replaceChildren();
  foot.replaceChildren();
  if (sheet === "correct") {
    $("sheet-title").textContent = "Correct an action";
    if (!screen.log.length) body.append(el("p", "sheet-empty", "No action in this hand yet."));
    screen.log.forEach((line) => {
      const words = `${ACTION_WORDS[line.action] || line.action}${line.amount !== null ? ` ${fmt(line.amount)}` : ""}`;
      const row = el("button", "log-line");
      row.dataset.index = String(line.index);
      row.disabled = !line.correctable;
      if (picked && picked.index === line.index) row.classList.add("picked");
      row.append(el("span", "log-no", `#${line.index}`), el("span", "log-street", line.street),
        el("span", "log-seat", `Seat ${line.seat}`), el("span", "log-what", words));
      row.addEventListener("click", () => {
        picked = line;
        drawSheet();
      });
      body.append(row);
    });
    if (picked) {
      foot.append(el("span", "sheet-ask", `Seat ${picked.seat} should have:`));
      [["fold", "Fold"], ["check", "Check"], ["call", "Call"], ["bet", `Bet/raise to ${entryText()}`]]
        .forEach(([verb, text]) => {
          const button = el("button", "btn btn-tool", text);
          button.dataset.correction = verb;
          button.addEventListener("click", () => {
            const extra = verb === "bet" ? amount() : {};
            if (extra === null) return;
            send({ verb: "correct", index: picked.index, seat: picked.seat, action: verb, ...extra });
          });
          foot.append(button);
        });
    } else {
      foot.append(el("span", "sheet-ask", "Pick the action to correct; for a bet, key its amount on the pad."));
    }
  } else if (sheet === "race") {
    $("sheet-title").textContent = `Race card for seat ${selected}`;
    const grid = el("div", "card-grid");
    for (const suit of ["s", "h", "d", "c"]) {
      for (const rank of RANKS) {
        const button = el("button", "card-pick");
        button.append(cardNode(`${rank}${suit}`, true));
        button.dataset.card = `${rank}${suit}`;
        button.addEventListener("click", () => send({ verb: "race_card", seat: selected, name: `${rank}${suit}` }));
        grid.append(button);
      }
    }
    body.append(grid);
  } else if (sheet === "straddle") {
    // the seats the table says may straddle this hand: the button first under
    // Mississippi (STRADDLE-3), then the first player left of the big blind (STRADDLE-2)
    $("sheet-title").textContent = "Deal with a straddle";
    body.append(el("p", "sheet-ask", "Who put out the straddle? The hand is dealt with it."));
    if (!screen.straddle_seats.length) body.append(el("p", "sheet-empty", "No seat may straddle this hand."));
    screen.straddle_seats.forEach((number) => {
      const line = seatLine(number);
      const button = el("button", "log-line pick-line");
      button.append(el("span", "log-seat", `Seat ${number}`), el("span", "log-what", line ? line.player : ""));
      button.dataset.straddle = String(number);
      button.addEventListener("click", () => send({ verb: "straddle", seat: number }));
      body.append(button);
    });
  } else if (sheet === "deck") {
    $("sheet-title").textContent = "Play with a saved deck";
    if (!screen.decks.length) body.append(el("p", "sheet-empty", "No saved deck: enrol one first."));
    screen.decks.forEach((name) => {
      const button = el("button", "log-line", name);
      button.addEventListener("click", () => send({ verb: "deck", name }));
      body.append(button);
    });
  }
}
