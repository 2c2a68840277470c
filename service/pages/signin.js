/* The sign-in page: the key from the link's fragment is posted once to /v1/sessions (which sets
 * the session cookie), then taken out of the address bar and the history. */
"use strict";

(() => {
  const msg = document.getElementById("signin-msg");
  const done = document.getElementById("signed-in");
  const form = document.getElementById("key-form");
  let session = null;

  function signedIn(player, sessionId) {
    session = sessionId;
    document.getElementById("who").textContent = player.name;
    BL.clear(msg);
    form.classList.add("hidden");
    done.classList.remove("hidden");
  }

  function askForKey() {
    done.classList.add("hidden");
    form.classList.remove("hidden");
  }

  async function signIn(key) {
    try {
      const out = await Account.call("/v1/sessions", "POST", { key });
      signedIn(out.player, out.session);
    } catch (e) {
      Account.show(msg, "error", e.status === 401 ? "That sign-in link is not valid here." : e.message);
      askForKey();
    }
  }

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const key = document.getElementById("key").value.trim();
    if (key) signIn(key);
  });

  document.getElementById("forget").addEventListener("click", async () => {
    try {
      if (session) await Account.call("/v1/me/sessions/" + encodeURIComponent(session), "DELETE");
      session = null;
      Account.show(msg, "ok", "Signed out: this computer no longer remembers you.");
      askForKey();
    } catch (e) {
      Account.show(msg, "error", e.message);
    }
  });

  // A sign-in link mailed to the player (#magic=): one-time, so it leaves the address bar too.
  async function signInByMail(token) {
    try {
      const out = await Account.call("/v1/sessions/magic", "POST", { token });
      signedIn(out.player, out.session);
    } catch (e) {
      Account.show(msg, "error", e.status === 401 ? "That sign-in link is used or expired: ask for another below." : e.message);
      askForKey();
    }
  }

  document.getElementById("mail-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const email = document.getElementById("mail-address").value.trim();
    if (!email) return;
    try {
      await Account.call("/v1/signin-mail", "POST", { email });
      Account.show(msg, "ok", "If a player has that address, a sign-in link is on its way (valid 15 minutes, once).");
    } catch (e) {
      Account.show(msg, "error", e.message);
    }
  });

  const magic = new URLSearchParams(location.hash.slice(1)).get("magic");
  const key = new URLSearchParams(location.hash.slice(1)).get("key");
  if (magic) {
    history.replaceState(null, "", location.pathname);
    signInByMail(magic);
  } else if (key) {
    // Out of the address bar and the history: the key is as good as the player.
    history.replaceState(null, "", location.pathname);
    signIn(key);
  } else {
    Account.me().then((me) => (me ? signedIn(me, me.session) : askForKey()))
      .catch((e) => Account.show(msg, "error", e.message));
  }
})();
