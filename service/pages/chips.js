/* Small marks in the page: a seat's chip, the seats' legend, a status badge. */

import { el } from "./dom.js";
import { seatColour, seatName } from "./seats.js";

export function seatChip(summary, seat) {
  const colour = seatColour(seat);
  return el("span", { class: "seat-chip", title: `seat ${seat}` },
    el("span", { class: "swatch", style: `background:${colour}`, "aria-hidden": "true" }),
    `${seatName(summary, seat)} (seat ${seat})`);
}

export function seatLegend(summary) {
  if (!summary || !summary.seats) return el("span");
  return el("ul", { class: "legend", "aria-label": "Seats and their colours" },
    summary.seats.map((s) => el("li", {}, seatChip(summary, s.seat))));
}

export function statusBadge(status) {
  return el("span", { class: `badge status-${status}` }, status);
}
