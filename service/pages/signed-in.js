/* Whether this browser is signed in, by the service's readable hint cookie. */

/* Whether this browser is signed in: the session cookie is HttpOnly, so the service sets a
 * readable hint beside it (no secret in it). Without it a page does not ask /v1/me, whose 401
 * would be an error in every visitor's console; a 401 there forgets it. */
const SIGNED_IN = "boardlog_signed_in";
export function signedIn() { return document.cookie.split("; ").some((c) => c.startsWith(SIGNED_IN + "=")); }
export function signedOut() { document.cookie = `${SIGNED_IN}=; Max-Age=0; path=/; SameSite=Lax`; }
