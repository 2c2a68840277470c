/* The board page's buttons beside the game: the admin's Abort, the record's export (the
 * admin's and the referee's), and "forget my seat" on this computer. */

import { ApiError, api } from "./api.js";
import { clear, el } from "./dom.js";
import { forgetToken } from "./seat-token.js";
import { $, S, gid, showError } from "./board-state.js";

/* `refresh` reads the game again (after an abort). */
export function mountAdmin(refresh) {
  $("abort").addEventListener("click", async () => {
    if (!confirm("Abort this game for everyone? This cannot be undone.")) return;
    try {
      const { data } = await api(`/v1/games/${gid}/abort`, { method: "POST", token: S.token });
      clear($("admin-msg")).append(el("div", { class: "msg ok" }, `The game is aborted (${data.status}).`));
      refresh();
    } catch (e) {
      showError($("admin-msg"), e);
    }
  });

  $("export").addEventListener("click", async () => {
    try {
      // No token: the signed-in player's session (a cookie) is the credential.
      const resp = await fetch(`/v1/games/${gid}/export`, { headers: S.token ? { Authorization: "Bearer " + S.token } : {}, cache: "no-store" });
      if (!resp.ok) {
        const body = await resp.json().catch(() => ({}));
        const err = body.error || {};
        throw new ApiError(resp.status, err.code || "http_" + resp.status, err.message || resp.statusText);
      }
      const url = URL.createObjectURL(await resp.blob());
      const a = el("a", { href: url, download: `${gid}.jsonl` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (e) {
      showError(S.role === "referee" ? $("referee-msg") : $("admin-msg"), e);
    }
  });

  $("leave").addEventListener("click", async () => {
    forgetToken(gid);
    if (S.role === "seat" && !S.token) {
      // The seat came with the session: forgetting it here signs this computer out.
      try {
        const { data } = await api("/v1/me");
        if (data.session) await api(`/v1/me/sessions/${encodeURIComponent(data.session)}`, { method: "DELETE" });
      } catch (e) {
        showError($("cmd-msg"), e, "Could not sign this computer out:");
        return;
      }
    }
    location.reload();
  });
}
