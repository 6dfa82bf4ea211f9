// Seat nodes running the real firmware on MicroPython (the WebAssembly port) under node.
//
//   node seatnodes.mjs --seats 1,2,3 [--loop-ms 5] [--firmware DIR] [--fakes DIR]
//
// Every node is the firmware's SeatNode (firmware/main.py's build(), seatnode.py, link.py,
// debounce.py, leds.py, the mfrc522.py driver over a fake chip at register level), one
// MicroPython instance for all of them (seatnodes.py). Each turn of the loop (the
// firmware's LOOP_MS by default) steps every node once, as its own main loop would.
//
// The host (tests/firmware/simnodes.py) owns the pseudo-terminals, which node cannot
// open: it writes command lines on stdin and reads report lines on stdout (the line
// protocol is in seatnodes.py). Python's own prints go to stderr. Exits when stdin closes.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const seats = opt("--seats", "").split(",").filter(Boolean).map(Number);
const loopMs = Number(opt("--loop-ms", "5"));
if (!seats.length || seats.some((s) => !Number.isInteger(s) || s < 1 || s > 254)
    || !(loopMs > 0)) {
  console.error("usage: node seatnodes.mjs --seats 1,2,3 [--loop-ms 5]");
  process.exit(2);
}
const firmwareDir = resolve(opt("--firmware", resolve(here, "../../../firmware")));
const fakesDir = resolve(opt("--fakes", resolve(here, "../fakes")));

const mp = await loadMicroPython({
  heapsize: 16 * 1024 * 1024,
  stdout: (line) => process.stderr.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});
const copyPy = (from, to) => {
  for (const name of readdirSync(from)) {
    if (name.endsWith(".py")) mp.FS.writeFile(join(to, name), readFileSync(join(from, name)));
  }
};
for (const dir of ["/lib", "/lib/firmware"]) {
  try { mp.FS.mkdir(dir); } catch { /* exists */ }
}
copyPy(firmwareDir, "/lib/firmware");
copyPy(fakesDir, "/lib");

const run = (code) => {
  try {
    return mp.runPython(code);
  } catch (error) {
    if (error.name !== "PythonError") throw error;
    console.error(error.message);
    process.exit(1);
  }
};
run(readFileSync(join(here, "seatnodes.py"), "utf8"));
const boot = mp.globals.get("sim_boot");
const step = mp.globals.get("sim_step");
const ms = () => Math.floor(performance.now());

let inbox = [];
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => inbox.push(line));
lines.on("close", () => process.exit(0));

process.stdout.write(boot(seats, ms()));
process.stdout.write(`ready ${seats.join(",")}\n`);

let due = performance.now();
const turn = () => {
  const now = ms();
  const text = inbox.join("\n");
  inbox = [];
  let out;
  try {
    out = step(now, text);
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
  if (out) process.stdout.write(out);
  due += loopMs;
  const wait = due - performance.now();
  if (wait < -100 * loopMs) due = performance.now(); // far behind (a stopped machine): resync
  setTimeout(turn, Math.max(0, wait));
};
turn();
