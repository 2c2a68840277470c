/* How wide text is drawn, estimated without a DOM (the layout is worked out before anything is
 * drawn, and tested under Node): a cell's name on one line or two. */

export const CHAR_W = 0.58; // average glyph width of the system sans-serif, in ems
// A cell's name is drawn at weight 600, wider: "Mana Pool" took 64 px of a 60 px square.
export const NAME_W = 0.64;
// A name a little too long is drawn squeezed on one line; a longer one, on two.
export const SQUEEZE = 1.12;

export const nameWidth = (s, fs) => s.length * NAME_W * fs;

/* 0 for no name, 1 when it fits (squeezed a little at most) or cannot be split, else 2. */
export function nameLines(str, fs, room) {
  return !str ? 0 : nameWidth(str, fs) <= room * SQUEEZE || !str.includes(" ") ? 1 : 2;
}

/* A name split in two lines of about equal length, at a space. */
export function splitName(str) {
  const words = str.split(" ");
  let best = 1, bestW = Infinity;
  for (let k = 1; k < words.length; k++) {
    const w = Math.max(words.slice(0, k).join(" ").length, words.slice(k).join(" ").length);
    if (w < bestW) { bestW = w; best = k; }
  }
  return [words.slice(0, best).join(" "), words.slice(best).join(" ")];
}

/* A fill colour the page accepts from a view or a skin (a hex, a name, rgb() or hsl()), else the fallback. */
export function safeFill(fill, fallback) {
  if (typeof fill !== "string" || !fill.trim()) return fallback;
  return /^(#[0-9a-f]{3,8}|[a-z]{3,20}|rgba?\([\d\s.,%]+\)|hsla?\([\d\s.,%deg]+\))$/i.test(fill.trim()) ? fill.trim() : fallback;
}
