/* The player's page: their name and their signed-in devices, each with "sign out". */
"use strict";

(() => {
  const msg = document.getElementById("me-msg");
  const panel = document.getElementById("sessions-panel");
  const rows = document.querySelector("#sessions tbody");

  function at(seconds) {
    return new Date(seconds * 1000).toLocaleString();
  }

  function signedOut() {
    document.getElementById("title").textContent = "Me";
    panel.classList.add("hidden");
    BL.clear(msg);
    msg.append(BL.el("div", { class: "msg info" }, "You are not signed in on this computer. Open your sign-in link, or ",
      BL.el("a", { href: "/signin", text: "sign in with your key" }), "."));
  }

  async function signOut(path) {
    try {
      await Account.call(path, "DELETE");
      await load();
    } catch (e) {
      Account.show(msg, "error", e.message);
    }
  }

  function row(s) {
    const label = s.current ? "Sign out this device" : "Sign out";
    return BL.el("tr", { class: s.current ? "you" : null },
      BL.el("td", {}, s.user_agent || "unknown device", s.current ? BL.el("span", { class: "badge muted-badge", text: "this device" }) : null),
      BL.el("td", { text: at(s.created) }),
      BL.el("td", { text: at(s.last_seen) }),
      BL.el("td", {}, BL.el("button", {
        type: "button", class: "secondary", text: label,
        onclick: () => signOut("/v1/me/sessions/" + encodeURIComponent(s.id)),
      })));
  }

  async function load() {
    const me = await Account.me();
    if (!me) return signedOut();
    document.getElementById("title").textContent = me.name;
    const { sessions } = await Account.call("/v1/me/sessions");
    BL.clear(rows);
    rows.append(...sessions.map(row));
    BL.clear(msg);
    panel.classList.remove("hidden");
  }

  document.getElementById("everywhere").addEventListener("click", () => signOut("/v1/me/sessions"));
  load().catch((e) => Account.show(msg, "error", e.message));
})();
