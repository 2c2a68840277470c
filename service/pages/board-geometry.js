/* The board's geometry: cell centres in pixels for grids, hexes and areas, hexagon corners, and
 * which way up a seat sees it. Pure (no DOM). */

export const SQ3 = Math.sqrt(3);

export function nearestDistance(points) {
  let best = Infinity;
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) {
      const d = Math.hypot(points[i][0] - points[j][0], points[i][1] - points[j][1]);
      if (d > 1e-6 && d < best) best = d;
    }
  }
  return Number.isFinite(best) ? best : 1;
}

/* Cell centres in pixels and a shape for each kind of board.
 * - grid: x, y are column and row; one unit is one square.
 * - hex: whole-number x, y are axial (q, r); otherwise x, y are already a plane layout
 *   (e.g. q + r/2, r * 0.866) and the nearest-neighbour distance is one hex. Pointy-top
 *   unless the board says "orientation": "flat" or the neighbours sit above each other.
 * - areas: x, y are a plane layout; areas are circles, joined by the edges. */
export function layout(board) {
  const cells = (board.cells || []).filter((c) => Number.isFinite(c.x) && Number.isFinite(c.y));
  const kind = board.kind;
  const out = { kind, cells: [], unit: 64 };
  if (cells.length === 0) return out;
  let pts = cells.map((c) => [c.x, c.y]);
  let flat = board.orientation === "flat";
  if (kind === "hex") {
    const axial = cells.every((c) => Number.isInteger(c.x) && Number.isInteger(c.y));
    if (axial) {
      pts = flat ? cells.map((c) => [c.x * SQ3 / 2, c.y + c.x / 2]) : cells.map((c) => [c.x + c.y / 2, c.y * SQ3 / 2]);
    }
    const d = nearestDistance(pts);
    pts = pts.map(([x, y]) => [x / d, y / d]);
    if (!axial && board.orientation !== "flat" && board.orientation !== "pointy") {
      // Neighbours straight above each other and none side by side: flat-top hexes.
      let side = false, above = false;
      for (let i = 0; i < pts.length && !side; i++) {
        for (let j = i + 1; j < pts.length; j++) {
          const dx = Math.abs(pts[i][0] - pts[j][0]), dy = Math.abs(pts[i][1] - pts[j][1]);
          if (Math.abs(Math.hypot(dx, dy) - 1) > 0.08) continue;
          if (dy < 0.08) { side = true; break; }
          if (dx < 0.08) above = true;
        }
      }
      flat = above && !side;
    }
    const S = 72; // distance between neighbouring centres, px
    out.unit = S;
    out.radius = S / SQ3; // corner radius so that neighbours share an edge
    out.flat = flat;
  } else if (kind === "areas") {
    const d = nearestDistance(pts);
    pts = pts.map(([x, y]) => [x / d, y / d]);
    out.unit = 130;
    out.radius = 130 * 0.45;
  } else {
    out.unit = 64;
  }
  out.cells = cells.map((c, i) => ({ cell: c, cx: pts[i][0] * out.unit, cy: pts[i][1] * out.unit }));
  return out;
}

export function hexPoints(cx, cy, r, flat) {
  const pts = [];
  for (let k = 0; k < 6; k++) {
    const a = (Math.PI / 180) * (60 * k + (flat ? 0 : 30));
    pts.push(`${(cx + r * Math.cos(a)).toFixed(1)},${(cy + r * Math.sin(a)).toFixed(1)}`);
  }
  return pts.join(" ");
}

/* How far to turn a drawn board (0 or 180 degrees) so that a seat's home (the skin's `home`
 * cells) is at the bottom, as a player sits at the table; 0 for a spectator. */
export function facing(sk, view, seat, drawn) {
  if (!sk || !sk.home || seat === null || seat === undefined || !drawn || !Array.isArray(drawn.cells)) return 0;
  const homes = new Set(sk.home(view, seat).map(String));
  const cells = drawn.cells.filter((c) => Number.isFinite(c.y));
  const ys = cells.map((c) => c.y);
  const mid = (Math.min(...ys) + Math.max(...ys)) / 2;
  const mine = cells.filter((c) => homes.has(String(c.id)));
  return mine.length && mine.reduce((a, c) => a + c.y, 0) / mine.length < mid - 1e-6 ? 180 : 0;
}

