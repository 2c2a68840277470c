/* The confirmation page: the token from the mailed link's fragment (which no browser sends to a
 * server) leaves the address bar at once, and is posted only when the reader clicks: a mail
 * scanner that opens the link confirms nothing. */

import { Account } from "./account.js";
import "./header.js"; // the header every page shares

const msg = document.getElementById("confirm-msg");
const form = document.getElementById("confirm-form");
const token = new URLSearchParams(location.hash.slice(1)).get("token");

async function confirm(ev) {
  ev.preventDefault();
  form.querySelector("button").disabled = true;
  try {
    const out = await Account.call("/v1/confirmations", "POST", { token });
    form.classList.add("hidden");
    Account.show(msg, "ok", `Confirmed: boardlog sends ${out.player ? out.player + "'s" : "its"} notices to ${out.address}.`);
  } catch (e) {
    form.classList.add("hidden");
    Account.show(msg, "error", e.status === 404
      ? "That link is used or expired: ask for another on your page." : e.message);
    document.getElementById("confirm-none").classList.remove("hidden");
  }
}

if (!token) {
  document.getElementById("confirm-none").classList.remove("hidden");
} else {
  history.replaceState(null, "", location.pathname);
  form.classList.remove("hidden");
  form.addEventListener("submit", confirm);
}
