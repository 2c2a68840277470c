/* The player's page, notifications: their targets (email, Apprise, webhook, Atom feed), each
 * with what it tells of, "this target is failing" and its last error, Test and Remove; an email
 * address not yet confirmed, with its link to send again; adding one (a webhook's secret and a
 * feed's address are shown once); the player's own address, changing or removing it; quiet
 * hours; browser notices. */

import { Account } from "./account.js";
import { clear, el } from "./dom.js";

const panel = document.getElementById("notify-panel");
const msg = document.getElementById("notify-msg");
const rows = document.querySelector("#targets tbody");
const once = document.getElementById("target-once");
const kind = document.getElementById("target-kind");
const address = document.getElementById("target-address");
const KINDS = { email: "Email", apprise: "Apprise", webhook: "Webhook", atom: "Atom feed" };
const EVENTS = { turn: "my turn", over: "a game's end" };

async function act(path, method, body, after) {
  try {
    const out = await Account.call(path, method, body);
    if (after) after(out);
    await load();
  } catch (e) {
    Account.show(msg, "error", e.message);
  }
}

// The confirmation mail again: for an email target, or (no target) the player's own address.
function sendAgain(path, address) {
  return el("button", { type: "button", class: "secondary", text: "Send the link again",
    onclick: () => act(path, "POST", {}, () => Account.show(msg, "ok",
      `A confirmation link is on its way to ${address}: open it to confirm the address.`)) });
}

function row(t) {
  const base = "/v1/me/targets/" + encodeURIComponent(t.id);
  const where = t.kind === "atom" ? "Atom feed" : `${KINDS[t.kind]}: ${t.address}`;
  const state = !t.confirmed
    ? el("span", { class: "target-unconfirmed" }, el("strong", { text: "Not confirmed" }),
      ": open the link mailed to this address")
    : t.failing
      ? el("span", { class: "target-failing" }, el("strong", { text: "This target is failing" }),
        ` (${t.failing.gave_up ? "gave up" : "retrying"}): ${t.failing.error}`)
      : el("span", { class: "muted", text: "working" });
  return el("tr", { "data-target": t.id, class: t.failing ? "failing" : null },
    el("td", { "data-label": "Where" }, el("span", { text: where + (t.digest ? " (daily digest)" : "") })),
    el("td", { "data-label": "Tells of", text: t.events.map((e) => EVENTS[e] || e).join(", ") }),
    el("td", { "data-label": "State" }, state),
    el("td", { "data-label": "" }, el("span", {},
      t.confirmed
        ? el("button", { type: "button", class: "secondary", text: "Test",
          onclick: () => act(base + "/test", "POST", {}, (out) => Account.show(msg, out.sent ? "ok" : "error",
            out.sent ? "Test notice sent." : "The test failed: " + out.error)) })
        : sendAgain(base + "/confirmation", t.address),
      " ",
      el("button", { type: "button", class: "secondary", text: "Remove",
        onclick: () => act(base, "DELETE") }))));
}

// The player's own address (sign-in links by mail), a new one waiting for its link, and the
// form that changes or removes it.
function ownEmail(email) {
  const own = document.getElementById("own-email");
  clear(own);
  document.getElementById("email-new-label").textContent = email ? "A new address" : "Address";
  document.getElementById("email-change").textContent = email ? "Change address" : "Add address";
  document.getElementById("email-remove").classList.toggle("hidden", !email);
  if (!email) {
    own.append("You have no email address here: add one to get sign-in links by mail.");
    return;
  }
  own.append(el("strong", { text: email.address }),
    email.confirmed ? ": confirmed, sign-in links by mail go to it." : ": not confirmed yet, "
      + "boardlog mails it no sign-in link until you open the link it was sent. ");
  if (email.pending) {
    own.append(el("br"), "The change to ", el("strong", { text: email.pending }),
      " waits for its confirmation: open the link mailed to it. Until then sign-in links go to "
      + email.address + ". ");
  }
  if (email.pending || !email.confirmed) {
    own.append(sendAgain("/v1/me/email/confirmation", email.pending || email.address));
  }
}

document.getElementById("email-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const input = document.getElementById("email-new");
  const wanted = input.value.trim();
  if (!wanted) {
    Account.show(msg, "error", "Type the new address first.");
    return;
  }
  act("/v1/me/email", "PUT", { email: wanted }, (out) => {
    input.value = "";
    if (out.confirmation_mailed === undefined) {
      Account.show(msg, "ok", `Your address is now ${out.email}: you confirmed it before.`);
    } else if (!out.confirmation_mailed) {
      Account.show(msg, "error", "The confirmation mail could not be sent just now: use “Send the link again” later.");
    } else {
      Account.show(msg, "ok", `A confirmation link is on its way to ${wanted}: open it to `
        + (out.email_pending ? "make the change." : "confirm the address."));
    }
  });
});

document.getElementById("email-remove").addEventListener("click", () => {
  if (!confirm("Remove your email address? Sign-in links by mail stop; your email targets stay.")) return;
  act("/v1/me/email", "DELETE", undefined, () => Account.show(msg, "ok", "Your email address is removed."));
});

async function load() {
  let data;
  try {
    data = await Account.call("/v1/me/targets");
  } catch (e) {
    if (e.status === 401) return; // signed out: me.js says so
    throw e;
  }
  ownEmail(data.email);
  clear(rows);
  if (data.targets.length) rows.append(...data.targets.map(row));
  else rows.append(el("tr", {}, el("td", { colspan: "4", class: "muted", text: "No targets yet: add one below." })));
  document.getElementById("quiet-start").value = data.quiet.start;
  document.getElementById("quiet-end").value = data.quiet.end;
  document.getElementById("quiet-tz").value = data.quiet.tz === "UTC" && !data.quiet.start
    ? (Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC") : data.quiet.tz;
  panel.classList.remove("hidden");
}

function kindChanged() {
  const k = kind.value;
  document.getElementById("target-address-field").classList.toggle("hidden", k === "atom");
  document.getElementById("target-digest-label").classList.toggle("hidden", k !== "email");
  address.placeholder = { email: "empty: your own email address", apprise: "discord://… tgram://… ntfys://…",
    webhook: "https://example.org/hooks/boardlog", atom: "" }[k];
}
kind.addEventListener("change", kindChanged);
kindChanged();

document.getElementById("target-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const body = { kind: kind.value, events: [] };
  if (document.getElementById("target-turn").checked) body.events.push("turn");
  if (document.getElementById("target-over").checked) body.events.push("over");
  if (kind.value !== "atom" && address.value.trim()) body.address = address.value.trim();
  if (kind.value === "email") body.digest = document.getElementById("target-digest").checked;
  act("/v1/me/targets", "POST", body, (out) => {
    address.value = "";
    clear(once);
    if (out.confirmation_mailed !== undefined) once.append(el("div", { class: "msg info",
      text: out.confirmation_mailed ? `A confirmation link is on its way to ${out.target.address}: `
        + "this target gets nothing until you open it."
        : "The confirmation mail could not be sent just now: use “Send the link again” later." }));
    if (out.secret) once.append(el("div", { class: "msg info" }, "The webhook's signing secret (shown once): ",
      el("code", { text: out.secret })));
    if (out.feed_url) once.append(el("div", { class: "msg info" }, "Your feed (keep the address private): ",
      el("code", { text: location.origin + out.feed_url })));
  });
});

document.getElementById("quiet-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  act("/v1/me/quiet", "PUT", { start: document.getElementById("quiet-start").value,
    end: document.getElementById("quiet-end").value, tz: document.getElementById("quiet-tz").value.trim() || "UTC" },
  () => Account.show(msg, "ok", "Quiet hours saved."));
});

const browser = document.getElementById("browser-notices");
function browserState() {
  if (!("Notification" in window)) {
    browser.disabled = true;
    browser.textContent = "This browser has no notices";
  } else if (Notification.permission === "granted") {
    browser.disabled = true;
    browser.textContent = "Browser notices are on for this computer";
  } else if (Notification.permission === "denied") {
    browser.disabled = true;
    browser.textContent = "Browser notices are blocked (the browser's site settings can allow them)";
  }
}
browser.addEventListener("click", async () => {
  await Notification.requestPermission();
  browserState();
});
browserState();

load().catch((e) => Account.show(msg, "error", e.message));
