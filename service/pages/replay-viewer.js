/* Who replays: a seat (by its link's token, or the signed-in player's session), the referee
 * (everything shown, before the end too), or a visitor (the public view). */

import { api } from "./api.js";
import { clear, el } from "./dom.js";
import { forgetToken } from "./seat-token.js";
import { signedIn } from "./signed-in.js";
import { $, S, enc, gid } from "./replay-state.js";

export async function whoAmI() {
  if (!S.token) return whoAmISignedIn();
  try {
    const { data } = await api(`/v1/games/${enc}/view`, { token: S.token });
    S.seat = Number.isInteger(data.seat) ? data.seat : null;
    if (S.seat === null) {
      // No seat: the referee (who may see everything before the end) or the admin (who may not).
      try {
        await api(`/v1/games/${enc}/replay?at=1&full=1`, { token: S.token });
        S.referee = true;
      } catch (e) { S.referee = false; }
    }
  } catch (e) {
    if (e.status === 401) {
      forgetToken(gid);
      S.token = null;
      clear($("page-msg")).append(el("div", { class: "msg warn" }, "The link's token is not valid for this game: showing the public view."));
    } else throw e;
  }
}

/* Signed in, with no token: the player the game names as its referee replays it with
 * everything shown, as a referee token's holder does, and a seat's player as that seat (the
 * session is the credential). */
async function whoAmISignedIn() {
  if (!signedIn()) return;
  try {
    const { data } = await api(`/v1/games/${enc}/seat`);
    S.referee = data.role === "referee";
    // A seat held by the session replays as that seat, as its link's holder does.
    if (data.role === "seat" && Number.isInteger(data.seat)) S.seat = data.seat;
  } catch (e) {
    if (e.status !== 401 && e.status !== 404) throw e;  // signed out since, or no one here
  }
}
