// Pitboss floor dashboard: the house each table plays (issue 18) and the House control of
// the table view. The label (game, stakes, rake, straddles) is the table's own, from its
// journal's house_set (a table's `house` over REST). A change goes to
// POST /api/v1/tables/{id}/house, which checks the house first and sends set_house; the
// table refuses a change during a hand (LEVEL-1), and the page shows why. Loaded before
// app.js, whose `h`, `api`, `state`, `canSend`, `addReply` and `refreshTable` it uses.
"use strict";

const houses = {
  list: null,     // [{file, name, label, error}] from GET /api/v1/houses
  armed: null,    // "table file" while the confirmation is shown
  sending: false,
  errorFor: null, // the table the shown refusal is about
};

// The house line of a table's card and of its table view.
function houseLine(table) {
  const house = table.house;
  return h("p", { class: house ? "house" : "house none", dataset: { house: house ? house.name : "" },
    title: house ? house.name : "the table has named no house: it plays its defaults" },
  house ? house.label : "No house named");
}

async function loadHouses() {
  try {
    const body = await api("/houses");
    houses.list = body.data;
    $("house-error").textContent = body.problem || "";
  } catch (err) {
    houses.list = [];
    $("house-error").textContent = `The houses could not be read: ${err.message}`;
  }
  scheduleRender();
}

function houseOptions() {
  const select = $("house-choice");
  const names = (houses.list || []).map((x) => x.file).join(",");
  if (select.dataset.files === names) return;
  const keep = select.value;
  select.replaceChildren(...(houses.list || []).map((x) => h("option", {
    value: x.file, disabled: Boolean(x.error),
    title: x.error || x.label,
  }, x.error ? `${x.file} (cannot be played)` : `${x.name} — ${x.label}`)));
  select.dataset.files = names;
  if (keep) select.value = keep;
}

// Called by renderDetail after it enabled the command forms (for an online table).
function renderHouseForm(table) {
  const form = $("house-form");
  form.hidden = !canSend("set_house");
  if (form.hidden) return;
  if (houses.errorFor && houses.errorFor !== table.id) {
    houses.errorFor = null;
    $("house-error").textContent = "";
  }
  houseOptions();
  const choice = (houses.list || []).find((x) => x.file === $("house-choice").value);
  const armed = houses.armed === `${table.id} ${choice ? choice.file : ""}`;
  $("house-change").hidden = armed;
  $("house-confirm").hidden = !armed;
  $("house-cancel").hidden = !armed;
  if (armed) $("house-confirm").textContent = `Yes, play ${choice.name} at table ${table.id}`;
  const blocked = !table.online || houses.sending || !choice || Boolean(choice.error);
  $("house-change").disabled = blocked;
  $("house-confirm").disabled = blocked;
}

async function changeHouse(tableId, file) {
  houses.armed = null;
  houses.sending = true;
  $("house-error").textContent = "";
  const pending = addReply(`Sending house ${file} to table ${tableId}…`, "pending");
  let text;
  let kind = "error";
  try {
    const reply = await api(`/tables/${encodeURIComponent(tableId)}/house`, {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ house: file }),
    });
    text = `Table ${tableId} plays ${reply.house.name} from the next hand — ${reply.house.label}`;
    kind = "ok";
  } catch (err) {
    text = `Table ${tableId} did not take house ${file}: ${err.message}`;
    $("house-error").textContent = err.message;
    houses.errorFor = tableId;
    if (err.status === 401) signOut(err.message);
  }
  pending.className = `reply ${kind}`;
  pending.replaceChildren(h("time", {}, new Date().toLocaleTimeString("en-GB")), " ", text);
  houses.sending = false;
  refreshTable(tableId);
  scheduleRender();
}

function wireHouse() {
  $("house-choice").addEventListener("change", () => {
    houses.armed = null;
    $("house-error").textContent = "";
    scheduleRender();
  });
  $("house-change").addEventListener("click", () => {
    houses.armed = `${state.selected} ${$("house-choice").value}`;
    scheduleRender();
  });
  $("house-cancel").addEventListener("click", () => { houses.armed = null; scheduleRender(); });
  $("house-confirm").addEventListener("click", () => {
    changeHouse(state.selected, $("house-choice").value);
  });
}

function forgetHouses() {
  Object.assign(houses, { list: null, armed: null, sending: false, errorFor: null });
  $("house-choice").replaceChildren();
  delete $("house-choice").dataset.files;
  $("house-error").textContent = "";
}
