/* Seats: each one's colour, the ink readable on a colour, and a seat's name. Pure (no DOM). */

// Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
export const SEAT_COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#444444"];

export function seatColour(seat) {
  if (seat === null || seat === undefined || seat < 0 || !Number.isInteger(seat)) return "#9aa0a6";
  return SEAT_COLOURS[seat % SEAT_COLOURS.length];
}

export function textOn(hex) {
  const m = /^#([0-9a-f]{6})$/i.exec(hex || "");
  if (!m) return "#111";
  const n = parseInt(m[1], 16);
  const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const L = 0.2126 * lin((n >> 16) & 255) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
  return L > 0.23 ? "#111" : "#fff";
}

export function seatName(summary, seat) {
  const s = summary && summary.seats ? summary.seats.find((x) => x.seat === seat) : null;
  return s ? s.name : `seat ${seat}`;
}
