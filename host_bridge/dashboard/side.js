// What the floor's side pages share (the director's page, the cash room, a hand's dispute
// timeline): the API client with the signed-in token, a DOM builder, a download saved as a
// file, and the sign-in panel. Plain JavaScript, no build step: a classic script loaded
// first with `defer`, so its names are globals to the page's own scripts after it. (The
// floor page has its own helpers, common.js.)
"use strict";

const API = "/api/v1";
const TOKEN_KEY = "pitboss.token";  // shared with the floor page (this tab only)
const session = { token: null, role: null };  // who is signed in, as the bridge said
const $ = (id) => document.getElementById(id);

// An element with its attributes (a value null, undefined or false is left out) and its
// children (null and undefined are left out).
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

// The bridge's answer to `path` (under /api/v1) with the signed-in token: the Response when
// it is ok, else an Error with the API's message and the HTTP status as `status` (0: the
// bridge was not reached).
async function request(path, options = {}) {
  const headers = { Authorization: `Bearer ${session.token}`, ...(options.headers || {}) };
  let response;
  try {
    response = await fetch(API + path, { ...options, headers });
  } catch (err) {
    throw Object.assign(new Error(`the bridge cannot be reached (${err.message}); check the `
      + "network"), { status: 0 });
  }
  if (response.ok) return response;
  let body = null;
  try { body = await response.json(); } catch { body = null; }
  const detail = body && (body.message || (typeof body.detail === "string" ? body.detail : null));
  throw Object.assign(new Error(detail || `HTTP ${response.status}`), { status: response.status });
}

// JSON out and in: `options.body`, if any, is JSON text; the answer's JSON (null if none).
async function api(path, options = {}) {
  const response = await request(path, { ...options,
    headers: { "Content-Type": "application/json", ...(options.headers || {}) } });
  try { return await response.json(); } catch { return null; }
}

// Save an answer as a file (a plain link cannot carry the token), named as the bridge
// names it (Content-Disposition), else `fallback`.
async function saveAs(response, fallback) {
  const named = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
  const url = URL.createObjectURL(await response.blob());
  const link = el("a", { href: url, download: named ? named[1] : fallback });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

// The sign-in panel of a page whose elements are named `${prefix}-...`: the section
// `-sign-in` (its form `-sign-in-form`, the field `-token`, the message `-sign-in-error`),
// the page's `-board`, shown once signed in, and `-who`, saying as whom. The role is the
// bridge's answer to GET /director/whoami. `opened()` runs once signed in, `closed()` as
// the page signs out (a token the bridge no longer takes: signOut(reason)). start() wires
// the form and tries the token this tab last signed in with.
function signInPanel(prefix, { opened, closed = () => {} }) {
  const part = (name) => $(`${prefix}-${name}`);
  const show = (signedIn) => {
    part("sign-in").hidden = signedIn;
    part("board").hidden = !signedIn;
    part("who").hidden = !signedIn;
  };

  async function signIn(token) {
    session.token = token;
    try {
      session.role = (await api("/director/whoami")).role;
    } catch (err) {
      session.token = null;
      part("sign-in-error").textContent = err.status === 401
        ? "That token is not recognised. Check it, or ask an admin for one." : err.message;
      return;
    }
    sessionStorage.setItem(TOKEN_KEY, token);
    part("sign-in-error").textContent = "";
    part("who").textContent = `Signed in as ${session.role}`;
    show(true);
    await opened();
  }

  function signOut(reason) {
    closed();
    Object.assign(session, { token: null, role: null });
    sessionStorage.removeItem(TOKEN_KEY);
    show(false);
    part("sign-in-error").textContent = reason || "";
  }

  function start() {
    part("sign-in-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const token = part("token").value.trim();
      if (token) signIn(token);
    });
    const saved = sessionStorage.getItem(TOKEN_KEY);
    if (saved) signIn(saved);
  }

  return { signIn, signOut, start };
}
