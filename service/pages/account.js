/* boardlog pages: the signed-in player (the sign-in and "me" pages). Plain browser JavaScript.
 * The session lives in an HttpOnly cookie this script never sees; a player key is read from
 * the sign-in link's fragment (never sent in a URL) and posted once. Everything from the server
 * is put into the page as text.
 */

import { ApiError, NOT_SIGNED_IN, asksMe } from "./api.js";
import { clear, el } from "./dom.js";
import { signedIn, signedOut } from "./signed-in.js";

/* fetch JSON from this site; referrerPolicy "same-origin" so that the Origin the API checks
 * for a cookie-signed change is this page's own (not "null"). Throws ApiError. */
async function call(path, method = "GET", body = undefined) {
  if (asksMe(path, null) && !signedIn()) throw NOT_SIGNED_IN();
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let resp;
  try {
    resp = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store", credentials: "same-origin", referrerPolicy: "same-origin",
    });
  } catch (e) {
    throw new ApiError(0, "network", "The server could not be reached: " + e.message, null);
  }
  const text = await resp.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch (e) { data = null; }
  }
  if (!resp.ok) {
    if (resp.status === 401 && asksMe(path, null)) signedOut();
    const err = (data && data.error) || {};
    throw new ApiError(resp.status, err.code || "http_" + resp.status, err.message || String(resp.status), data);
  }
  return data;
}

/* The signed-in player, or null when this browser is not signed in. */
async function me() {
  try {
    return await call("/v1/me");
  } catch (e) {
    if (e.status === 401) return null;
    throw e;
  }
}

function show(node, kind, text) {
  clear(node);
  node.append(el("div", { class: "msg " + kind, text }));
}

export const Account = { call, me, show };
