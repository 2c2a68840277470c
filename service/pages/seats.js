/* Seats: each one's colour, the ink readable on a colour, and a seat's name. Pure (no DOM). */

// Okabe-Ito colours: distinguishable with the common colour-vision deficiencies. The one place
// the seat colours are defined (pages and styles take them from here: SEAT_COLOURS, seatColour);
// each one's label colour is textOn's, checked at 4.5:1 by tests/js/sentences.test.js and
// tests/browser/test_traps.py.
export const SEAT_COLOURS = Object.freeze(["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#444444"]);

export function seatColour(seat) {
  if (seat === null || seat === undefined || seat < 0 || !Number.isInteger(seat)) return "#9aa0a6";
  return SEAT_COLOURS[seat % SEAT_COLOURS.length];
}

/* WCAG 2's relative luminance of a #rrggbb colour. */
export function luminance(hex) {
  const n = parseInt(hex.slice(1), 16);
  const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * lin((n >> 16) & 255) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
}

/* The label colour for text on `hex`: of white and near-black, the one with the higher
 * contrast. A fixed luminance threshold (0.23) put white on vermillion (#D55E00) at 3.87:1,
 * under WCAG's 4.5:1, where near-black reaches 4.88:1 (issue #40). */
export function textOn(hex) {
  if (!/^#[0-9a-f]{6}$/i.test(hex || "")) return "#111111";
  const L = luminance(hex);
  const onWhite = 1.05 / (L + 0.05), onDark = (L + 0.05) / (luminance("#111111") + 0.05);
  return onDark >= onWhite ? "#111111" : "#ffffff";
}

export function seatName(summary, seat) {
  const s = summary && summary.seats ? summary.seats.find((x) => x.seat === seat) : null;
  return s ? s.name : `seat ${seat}`;
}
