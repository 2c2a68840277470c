/* Calls to the API: JSON in and out, its errors as ApiError, and command ids. */

import { signedIn, signedOut } from "./signed-in.js";

export class ApiError extends Error {
  constructor(status, code, message, body) {
    super(message);
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

export const NOT_SIGNED_IN = () => new ApiError(401, "sign_in_required", "This browser is not signed in: sign in first.", null);
export const asksMe = (path, token) => !token && (path === "/v1/me" || path.startsWith("/v1/me/") || path.startsWith("/v1/me?"));

/* fetch JSON; throws ApiError carrying the API's {"error": {code, message}} (or a
 * command result's {status, code, message}) for any non-2xx answer.
 * `anonymous`: ask as a visitor would, the session cookie left out (a signed-in player who
 * chose the public view must get the public view, not their seat's). */
export async function api(path, { method = "GET", token = null, body = undefined, anonymous = false } = {}) {
  if (asksMe(path, token) && !signedIn()) throw NOT_SIGNED_IN();
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = "Bearer " + token;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let resp;
  try {
    resp = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store",
      credentials: anonymous ? "omit" : "same-origin" });
  } catch (e) {
    throw new ApiError(0, "network", "The server could not be reached: " + e.message, null);
  }
  let data = null;
  const text = await resp.text();
  if (text) {
    try { data = JSON.parse(text); } catch (e) { data = null; }
  }
  if (!resp.ok) {
    if (resp.status === 401 && asksMe(path, token)) signedOut();
    const err = (data && data.error) || data || {};
    throw new ApiError(resp.status, err.code || "http_" + resp.status,
      err.message || `${resp.status} ${resp.statusText}`, data);
  }
  return { status: resp.status, data };
}

/* A command id: crypto.randomUUID where the page is a secure context, else a v4 uuid
 * from getRandomValues (plain http on a LAN address is not a secure context). */
export function commandId() {
  if (window.crypto && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

