/* The replay's audit badge: GET …/audit, said in its own terms (what was checked, the verdict,
 * how many random draws become checkable when the game ends). */

import { api } from "./api.js";
import { $, S, enc } from "./replay-state.js";

function drawsSoFar() {
  let n = 0;
  for (const e of S.entries) if (e.rng) n = Math.max(n, e.rng.to);
  return n;
}

/* The badge says exactly what was checked, in the audit's own terms (its `checked` list and,
 * where the service signs, its verdict and summary). */
export async function audit() {
  const badge = $("audit-badge");
  badge.className = "badge audit-badge audit-wait";
  badge.textContent = "checking…";
  try {
    const { data } = await api(`/v1/games/${enc}/audit`);
    const checked = (data.checked || []).filter((c) => !/\brandom draws\b|\bcommands re-run\b/.test(c));
    const draws = drawsSoFar();
    const verdict = data.verdict || (data.ok ? "ok" : "failed");
    const finished = data.complete === true || (data.complete === undefined && (data.checked || []).some((c) => /re-derived/.test(c)));
    let head, line;
    if (verdict === "failed") {
      head = data.seq ? `failed at seq ${data.seq}` : "failed";
      line = data.reason || data.summary || "";
    } else if (verdict === "unverifiable") {
      head = "unverifiable";
      line = data.summary || data.reason || "";
    } else if (finished) {
      head = "verified";
      line = data.summary && data.summary.startsWith("verified") ? data.summary : `verified: ${(data.checked || []).join(", ")}`;
    } else {
      head = verdict === "verified" ? `verified up to seq ${data.events}` : "intact so far";
      line = `${checked.join(" and ") || "nothing"} intact; ${draws} draw${draws === 1 ? "" : "s"} checkable when the game ends`;
    }
    badge.className = `badge audit-badge ${verdict === "failed" ? "audit-fail" : verdict === "unverifiable" ? "audit-wait" : "audit-ok"}`;
    badge.textContent = head;
    $("audit-reason").textContent = line;
    $("audit-more").textContent = `${data.events} events checked${data.key ? `; signed with key ${data.key}` : ""}.`;
  } catch (e) {
    badge.className = "badge audit-badge audit-fail";
    badge.textContent = "unavailable";
    $("audit-reason").textContent = e.message;
  }
}
