// Runs a Python test script on real MicroPython (the WebAssembly port) under node.
//
//   node run.mjs SCRIPT.py [--firmware DIR] [--fakes DIR]
//
// The firmware's *.py go to /lib/firmware/ (the package, as on the board), the fake
// `machine`, `neopixel` and chip modules to /lib/, then SCRIPT runs as __main__.
// Exit status: 0 when the script ran to its end, 1 on any Python exception.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? resolve(args[i + 1]) : fallback;
};
const script = args.find((a, i) => !a.startsWith("--") && (i === 0 || !args[i - 1].startsWith("--")));
if (!script) {
  console.error("usage: node run.mjs SCRIPT.py [--firmware DIR] [--fakes DIR]");
  process.exit(2);
}
const firmwareDir = opt("--firmware", resolve(here, "../../../firmware"));
const fakesDir = opt("--fakes", resolve(here, "../fakes"));

const mp = await loadMicroPython({
  heapsize: 8 * 1024 * 1024,
  stdout: (line) => process.stdout.write(line + "\n"),
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

try {
  mp.runPython(readFileSync(resolve(script), "utf8"));
} catch (error) {
  if (error.name !== "PythonError") throw error;
  console.error(error.message);
  process.exit(1);
}
