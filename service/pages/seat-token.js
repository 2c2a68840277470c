/* The game id of a page's address, and the seat (or admin) token this tab holds for it. */

export function gameIdFromPath() {
  const m = location.pathname.match(/^\/games\/([^/]+)/);
  return m ? decodeURIComponent(m[1]) : null;
}

const tokenKey = (gid) => `boardlog.token.${gid}`;

/* The seat (or admin) token: taken from `#token=` once, kept in sessionStorage for this
 * tab, and removed from the address bar so that a copied or shared URL never carries it.
 * It is only ever sent in the Authorization header. */
export function takeToken(gid) {
  const frag = new URLSearchParams(location.hash.replace(/^#/, ""));
  const fromHash = frag.get("token");
  if (fromHash) {
    try { sessionStorage.setItem(tokenKey(gid), fromHash); } catch (e) { /* storage off */ }
    frag.delete("token");
    const rest = frag.toString();
    history.replaceState(history.state, "", location.pathname + location.search + (rest ? "#" + rest : ""));
    return fromHash;
  }
  try { return sessionStorage.getItem(tokenKey(gid)); } catch (e) { return null; }
}

export function forgetToken(gid) {
  try { sessionStorage.removeItem(tokenKey(gid)); } catch (e) { /* storage off */ }
}
