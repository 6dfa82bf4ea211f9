// What the floor's side pages share (the director's page, the cash room, a hand's dispute
// timeline), beside client.js's: who is signed in, the JSON API client with their token,
// and the sign-in panel. Plain JavaScript, no build step: a classic script loaded after
// client.js with `defer`, so its names are globals to the page's own scripts after it.
"use strict";

const TOKEN_KEY = "pitboss.token";  // shared with the floor page (this tab only)
const session = { token: null, role: null };  // who is signed in, as the bridge said

// JSON out and in: `options.body`, if any, is JSON text; the answer's JSON (null if none).
async function api(path, options = {}) {
  const response = await bridgeRequest(session.token, path, { ...options,
    headers: { "Content-Type": "application/json", ...(options.headers || {}) } });
  try { return await response.json(); } catch { return null; }
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
