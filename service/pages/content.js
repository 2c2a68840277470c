/* A game's content and the game types' names. */

import { api } from "./api.js";

/* A game's content file (rules/<game>/content/<name>: names, card text), cached by the browser. */
export function content(game, name) {
  return fetch(`/static/content/${game}/${name}`, { cache: "force-cache" }).then((r) => {
    if (!r.ok) throw new Error(`${game}/${name}: HTTP ${r.status}`);
    return r.json();
  });
}

/* Each game type's name as players know it ("Dragon Dale" for dragondale), from
 * GET /v1/game-types, asked once a page; `gameTitle` gives the code until the answer is in. */
let titles = null;
const titleOf = {};
export function gameTitles() {
  titles = titles || api("/v1/game-types").then(({ data }) => {
    for (const t of data.types || []) titleOf[t.game] = t.title;
    return titleOf;
  }).catch(() => { titles = null; return titleOf; });
  return titles;
}
export const gameTitle = (game) => titleOf[game] || game;
