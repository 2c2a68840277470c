/* The lobby's shared state and helpers: the signed-in player, the game types, and the API
 * through the account's calls (the session cookie is the credential). */

import { Account } from "./account.js";

export const L = {
  me: null, // the signed-in player, or null
  types: [], // GET /v1/game-types
};

export const call = (path, method, body) => Account.call(path, method, body);
export const typeOf = (name) => L.types.find((t) => t.game === name);
export const title = (name) => (typeOf(name) || {}).title || name;
export const plural = (n, one, many) => `${n} ${n === 1 ? one : many || one + "s"}`;

/* 128 random bits, hex: a seat's contribution to its game's randomness. */
export function entropy() {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
}
