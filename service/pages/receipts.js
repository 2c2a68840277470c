/* Each accepted command's signed receipt, kept in this browser (localStorage, by game), counted
 * under the move's controls and downloadable as one JSON file. */

import { el } from "./dom.js";
import { $, gid } from "./board-state.js";


const receiptsKey = () => `boardlog.receipts.${gid}`;
function receipts() {
  try { return JSON.parse(localStorage.getItem(receiptsKey()) || "[]"); } catch (e) { return []; }
}
export function keepReceipt(r) {
  if (!r || typeof r.seq !== "number") return;
  const all = receipts().filter((x) => x.seq !== r.seq);
  all.push(r);
  all.sort((a, b) => a.seq - b.seq);
  try { localStorage.setItem(receiptsKey(), JSON.stringify(all)); } catch (e) { /* storage off or full */ }
  renderReceipts();
}
function renderReceipts() {
  const n = receipts().length;
  $("receipts-count").textContent = String(n);
  $("receipts-line").classList.toggle("hidden", n === 0);
}
$("receipts-link").addEventListener("click", (ev) => {
  ev.preventDefault();
  const blob = new Blob([JSON.stringify({ game: gid, receipts: receipts() }, null, 1)], { type: "application/json" });
  const a = el("a", { href: URL.createObjectURL(blob), download: `${gid}-receipts.json` });
  document.body.append(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
});
renderReceipts();
