/* The pieces' symbols: small figures of this project's own drawing, in a 24-unit box, drawn in
 * the token's ink over its owner's colour. A skin names a piece's symbol by its role (`sword`,
 * `bow`, ...: each game's table in its skin says which unit kind is which); the legend shows each
 * with its name (symbolKey). */

import { el, svg } from "./dom.js";

// solid: filled with the ink; else drawn as a 2.2-unit line.
const FIGURES = {
  sword: { d: "M19 3 L21 5 L10 16 L8 14 Z M5 13 L11 19 M4 20 L7.5 16.5" },
  axe: { d: "M4 20 L5.5 21.5 L14 11 L12.5 9.5 Z M10.5 8 C12.5 3 18.5 1.5 21.5 6.5 C18.5 7 16.5 9 14.5 12 Z", solid: true },
  spear: { d: "M4 20 L16 8 M14 4 L20 4 L20 10 Z" },
  bow: { d: "M7 3 Q21 12 7 21 M7 3 L7 21 M4 12 L19 12 M16 9 L19 12 L16 15" },
  staff: { d: "M6 21 L15 8 M17 2 A3.5 3.5 0 1 1 16.9 2 Z" },
  shield: { d: "M12 3 L20 6 V12 C20 17 16 20 12 21 C8 20 4 17 4 12 V6 Z", solid: true },
  crown: { d: "M3 18 L5 7 L9 12 L12 5 L15 12 L19 7 L21 18 Z", solid: true },
  wing: { d: "M3 19 C6 9 13 4 21 4 C19 8 17 9 14 9 C16 10 15 13 12 13 C13 15 10 17 3 19 Z", solid: true },
  skull: { d: "M6 11 A6 6 0 1 1 18 11 V15 H15.5 V19 H8.5 V15 H6 Z M8.5 10 H10.5 V12 H8.5 Z M13.5 10 H15.5 V12 H13.5 Z", solid: true, evenodd: true },
  cross: { d: "M10 3 H14 V10 H21 V14 H14 V21 H10 V14 H3 V10 H10 Z", solid: true },
  horseshoe: { d: "M6 4 V11 A6 6 0 0 0 18 11 V4" },
  eye: { d: "M2 12 Q12 3 22 12 Q12 21 2 12 Z M12 9 A3 3 0 1 1 11.9 9 Z", solid: true, evenodd: true },
  flame: { d: "M12 2 C15 7 19 10 17 16 A5 5 0 0 1 7 16 C6 12 9 10 10 6 C11 9 12 10 12 12 C14 9 13 5 12 2 Z", solid: true },
  star: { d: "M12 2 L14.5 9 L22 9 L16 13.5 L18.5 21 L12 16.5 L5.5 21 L8 13.5 L2 9 L9.5 9 Z", solid: true },
  fist: { d: "M5 10 H19 V16 A4 4 0 0 1 15 20 H9 A4 4 0 0 1 5 16 Z M5 10 V6 H8.5 V10 M8.5 6 V4.5 H12 V10 M12 4.5 H15.5 V10 M15.5 5 H19 V10", solid: true },
  paw: { d: "M12 12 C16 12 18 16 16 19 C14 21 10 21 8 19 C6 16 8 12 12 12 Z M6 7 A2 2.5 0 1 1 5.9 7 Z M10 4 A2 2.5 0 1 1 9.9 4 Z M14 4 A2 2.5 0 1 1 13.9 4 Z M18 7 A2 2.5 0 1 1 17.9 7 Z", solid: true },
  tree: { d: "M12 2 L19 12 H15 L20 18 H4 L9 12 H5 Z M10.5 18 H13.5 V22 H10.5 Z", solid: true },
  rune: { d: "M12 2 L20 12 L12 22 L4 12 Z M12 7 V17 M9 10 L12 13 L15 10" },
  dragon: { d: "M2 14 L8 7 L11 11 L14 4 L16 10 L22 8 L18 14 L13 14 L12 20 L9 14 Z", solid: true },
  horns: { d: "M3 5 C3 11 7 12 12 12 C17 12 21 11 21 5 M8 12 V19 H16 V12" },
  note: { d: "M8 14 A3 3 0 1 0 8.01 14 Z M9.8 17 V3 H11.8 V17 Z M11.8 3 L19 6 V10 L11.8 7 Z", solid: true },
  torch: { d: "M10 22 V12 H14 V22 Z M12 2 C15.5 5 16.5 8.5 14.5 11 H9.5 C7.5 8.5 8.5 5 12 2 Z", solid: true },
  leaf: { d: "M4 20 C4 10 10 4 20 4 C20 14 14 20 4 20 Z", solid: true },
  ghost: { d: "M5 21 V10 A7 7 0 0 1 19 10 V21 L15.5 18 L12 21 L8.5 18 Z M8.5 9 H10.5 V12 H8.5 Z M13.5 9 H15.5 V12 H13.5 Z", solid: true, evenodd: true },
  egg: { d: "M12 3 C16 3 19 10 19 14 A7 7 0 0 1 5 14 C5 10 8 3 12 3 Z", solid: true },
  spiral: { d: "M12 12 A2 2 0 1 1 14 14 A4 4 0 1 1 10 8 A6 6 0 1 1 18 16" },
  bird: { d: "M2 9 L9 11 L12 6 L15 11 L22 9 L16 14 L12 20 L8 14 Z", solid: true },
  mask: { d: "M3 8 C8 5 16 5 21 8 C21 15 17 19 12 19 C7 19 3 15 3 8 Z M7 10 H10.5 V12.5 H7 Z M13.5 10 H17 V12.5 H13.5 Z", solid: true, evenodd: true },
  spark: { d: "M12 3 V21 M3 12 H21 M6 6 L18 18 M18 6 L6 18" },
  firefly: { d: "M12 8 A4 4 0 1 1 11.9 8 Z M12 2 V5 M12 19 V22 M2 12 H5 M19 12 H22 M5 5 L7 7 M17 17 L19 19 M19 5 L17 7 M5 19 L7 17" },
  rock: { d: "M3 18 L6 9 L12 5 L18 8 L21 17 L15 20 L8 20 Z", solid: true },
  block: { d: "M4 8 L12 4 L20 8 V16 L12 20 L4 16 Z", solid: true },
};

export const SYMBOLS = Object.keys(FIGURES);

/* The figure `name` at (x, y), `size` units square, in `ink`; null for a name it does not know. */
export function symbol(name, { x = 0, y = 0, size = 24, ink = "#111" } = {}) {
  const f = FIGURES[name];
  if (!f) return null;
  const k = size / 24;
  return svg("g", { class: `symbol symbol-${name}`, transform: `translate(${x.toFixed(1)} ${y.toFixed(1)}) scale(${k.toFixed(3)})`, "aria-hidden": "true" },
    svg("path", { d: f.d, fill: f.solid ? ink : "none", stroke: f.solid ? "none" : ink, "stroke-width": f.solid ? null : 2.2,
      "stroke-linecap": "round", "stroke-linejoin": "round", "fill-rule": f.evenodd ? "evenodd" : null }));
}

/* A legend of symbols: each one drawn in a seat-neutral token, with its name beside it (and the
 * name in full on hover or tap). `entries`: [{symbol, name, text?}]. */
export function symbolKey(entries, caption = "Pieces") {
  return el("div", { class: "symbol-key" }, el("h3", {}, caption),
    el("ul", { class: "legend symbols", "aria-label": caption }, entries.filter((e) => FIGURES[e.symbol]).map((e) =>
      el("li", { title: e.text ? `${e.name}: ${e.text}` : e.name },
        svg("svg", { viewBox: "0 0 24 24", width: 22, height: 22, class: "symbol-swatch", role: "img", "aria-label": e.name },
          svg("rect", { x: 0.5, y: 0.5, width: 23, height: 23, rx: 5, fill: "#5b6470" }),
          symbol(e.symbol, { x: 3, y: 3, size: 18, ink: "#fff" })),
        ` ${e.name}`))));
}
