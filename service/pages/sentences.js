/* A game's state and log in words: whose turn, the outcome, how long ago, an event. Pure (no DOM). */

import { seatName } from "./seats.js";

export function moveAt(moves, seq) {
  return (moves || []).find((e) => e.move && e.seq_from === seq) || null;
}

/* Who is to act and what the game asks of them, as anyone may read it ("bob (Goblins): take an
   action, use a power or pass (round 2)"); a summary projected before it carried the text
   gives the seats and the prompt's kind. */
export function whoseTurn(summary) {
  if (!summary || !summary.prompt) return "—";
  const text = summary.prompt.text;
  if (text) return String(text).replace(/\.$/, "");
  const names = summary.prompt.seats.map((s) => seatName(summary, s));
  const kind = String(summary.prompt.kind || "").replace(/_/g, " ");
  return names.length ? `${names.join(", ")} (${kind})` : kind;
}

export function outcomeText(summary, outcome) {
  if (!outcome) return "";
  const winners = (outcome.winners || []).map((s) => seatName(summary, s));
  let out = winners.length ? `Won by ${winners.join(", ")}` : "No winner";
  if (outcome.scores && outcome.scores.length) {
    out += "; scores " + outcome.scores.map((v, i) => `${seatName(summary, i)} ${v}`).join(", ");
  }
  if (outcome.reason) out += ` (${outcome.reason})`;
  return out;
}

export function when(iso) {
  if (!iso) return "";
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const s = Math.round((Date.now() - t) / 1000);
  if (s < 5) return "just now";
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/* A JSON value as compact readable text (for log lines and small values). */
export function compact(v) {
  if (v === null || v === undefined) return "—";
  if (typeof v !== "object") return String(v);
  return JSON.stringify(v);
}


/* One line for a log entry: the command's notation when it has one, else type + data. */
export function describeEvent(summary, e) {
  const who = e.seat === null || e.seat === undefined ? "" : seatName(summary, e.seat);
  if (e.type === "boardlog.CommandAccepted") {
    const d = e.data || {};
    const what = d.text || (d.type ? `${d.type} ${compact(d.args || {})}` : "command");
    return { who, what, kind: "command" };
  }
  if (e.type === "boardlog.GameCreated") {
    const d = e.data || {};
    const seats = (d.seats || []).map((s) => s.name).join(", ");
    return { who: "", what: `game created: ${d.game || "?"} for ${seats}`, kind: "platform" };
  }
  if (e.type === "boardlog.SeedRevealed") return { who: "", what: "seed revealed (the dice can now be audited)", kind: "platform" };
  if (e.type === "boardlog.GameAborted") return { who: "", what: `game aborted: ${(e.data || {}).reason || ""}`, kind: "platform" };
  const data = e.data && Object.keys(e.data).length ? " " + compact(e.data) : "";
  return { who, what: `${e.type}${data}`, kind: "event" };
}

/* The game as players call it: the view's (or the summary's) `headline` when the rules give one ("Rite: ann vs
 * bob, round 5"), else the game type's name and the seats' names ("Rite: ann vs bob"). */
export function headline(view, summary, gameName) {
  for (const from of [view, summary]) if (from && typeof from.headline === "string" && from.headline.trim()) return from.headline.trim();
  const names = ((summary && summary.seats) || []).map((s) => s.name).filter(Boolean);
  return names.length ? `${gameName}: ${names.join(" vs ")}` : gameName;
}
