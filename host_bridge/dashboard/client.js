// What every signed-in page of the dashboard shares (the floor page, the overlay, the
// director's page, the cash room, the dispute timeline): the DOM builder and the bridge's
// requests with a bearer token, their failures as an ApiError, an answer saved as a file.
// Plain JavaScript, no build step: a classic script loaded first with `defer`, so its
// names are globals to the page's own scripts after it.
"use strict";

const API = "/api/v1";
const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------------ DOM builder
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "dataset") {
      for (const [k, v] of Object.entries(value)) {
        if (v !== null && v !== undefined) el.dataset[k] = v;
      }
    } else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// ------------------------------------------------------------------ HTTP
class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

// The bridge's answer to `path` (under /api/v1) with `token`: the Response when it is ok,
// else an ApiError with the API's message and the HTTP status (0: the bridge was not
// reached).
async function bridgeRequest(token, path, options = {}) {
  const headers = { Authorization: `Bearer ${token}`, ...(options.headers || {}) };
  let response;
  try {
    response = await fetch(API + path, { ...options, headers });
  } catch (err) {
    throw new ApiError(0, `the bridge cannot be reached (${err.message}); check the network`);
  }
  if (response.ok) return response;
  let body = null;
  try { body = await response.json(); } catch { body = null; }
  const detail = body && (body.message || (typeof body.detail === "string" ? body.detail : null));
  const fallback = response.status >= 500
    ? `the bridge failed (HTTP ${response.status}); check the table's state before `
      + "trying again, and tell the bridge's admin"
    : `HTTP ${response.status}`;
  throw new ApiError(response.status, detail || fallback);
}

// Save an answer as a file (a plain link cannot carry the token), named as the bridge
// names it (Content-Disposition), else `fallback`.
async function saveAs(response, fallback) {
  const named = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
  const url = URL.createObjectURL(await response.blob());
  const link = h("a", { href: url, download: named ? named[1] : fallback });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
