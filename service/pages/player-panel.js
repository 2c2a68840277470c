/* One player's panel, as the skins draw it on the board page and the replay: the seat's colour,
 * name, faction or tribe, "you" and "to play", its facts, and more below. */

import { el } from "./dom.js";
import { seatColour } from "./seats.js";

/* `c` is the skin's context (its names, and `toPlay`: the seats the prompt waits on). */
export function playerPanel(c, seat, title, facts, extra, you) {
  const toPlay = (c.toPlay || []).includes(seat);
  return el("section", { class: "player-panel" + (you ? " mine" : ""), "data-seat": seat, style: `border-top-color:${seatColour(seat)}` },
    el("h3", {}, el("span", { class: "swatch", style: `background:${seatColour(seat)}`, "aria-hidden": "true" }),
      `${c.names[seat] || "seat " + seat}`, el("span", { class: "faction" }, ` · ${title}`), you ? el("span", { class: "badge you-badge" }, "you") : null,
      toPlay ? el("span", { class: "badge turn-badge" }, "to play") : null),
    el("dl", { class: "kv facts-kv" }, facts.map(([k, v]) => [el("dt", {}, k), el("dd", {}, v === null || v === undefined ? "—" : String(v))])),
    extra);
}
