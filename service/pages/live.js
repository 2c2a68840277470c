/* The live stream of game summaries, one a browser for all its tabs.
 *
 * One stream a browser for every board and replay tab: over HTTP/1.1 a browser opens six
 * connections to a host in all, and with a stream a tab six open boards took them all (every
 * other request of the browser, a move or a page, then waited). The tab holding the lock
 * reads /v1/streams/games for every game the tabs ask for and passes each summary on; when it
 * closes, another tab takes the lock and opens the stream again. `on.summary(text)` gets each
 * summary's JSON, `on.state("live" | "reconnecting", retryMs?)` the stream's state (retryMs:
 * the page's own retry, after the browser gave up reconnecting by itself). */
const STREAM_GAMES = 32; // /v1/streams/games takes this many
// Past 32 games the leader opens a stream for each 32 more, up to this many streams (128
// games): the rest of the browser's six connections stay free for its moves and pages.
const MAX_STREAMS = 4;
const TAB = Math.random().toString(36).slice(2) + Date.now().toString(36);
let shared = null; // { channel, handlers: Map gid -> Set of `on`, state, lead }

export function watchGame(gid, on) {
  if (!("EventSource" in window)) return;
  if (!("BroadcastChannel" in window) || !navigator.locks) {
    const alone = liveStream(() => gid, (id, text) => on.summary(text), (state, retry) => on.state(state, retry));
    alone.changed();
    window.addEventListener("pagehide", () => alone.close());
    return;
  }
  if (!shared) startShared();
  let set = shared.handlers.get(gid);
  if (!set) shared.handlers.set(gid, set = new Set());
  set.add(on);
  if (shared.state) on.state(shared.state.state, shared.state.retry);
  announce();
}

function startShared() {
  const channel = new BroadcastChannel("boardlog-games");
  shared = { channel, handlers: new Map(), state: null, lead: null };
  channel.onmessage = (ev) => heard(ev.data);
  navigator.locks.request("boardlog-games-stream", lead);
  window.addEventListener("pagehide", () => {
    channel.postMessage({ t: "bye", tab: TAB });
    if (shared.lead) {
      shared.lead.close();
      channel.postMessage({ t: "state", state: "reconnecting" }); // until the next tab leads
    }
  });
}

function announce() {
  const m = { t: "want", tab: TAB, gids: [...shared.handlers.keys()] };
  shared.channel.postMessage(m);
  if (shared.lead) shared.lead.want(m); // a channel does not hear its own messages
}

function heard(m) {
  if (m.t === "summary") deliver(m.gid, m.data);
  else if (m.t === "state") showState(m);
  else if (m.t === "who") announce();
  else if (shared.lead && m.t === "want") shared.lead.want(m);
  else if (shared.lead && m.t === "bye") shared.lead.bye(m.tab);
}

function deliver(gid, text) {
  for (const on of shared.handlers.get(gid) || []) on.summary(text);
}

function showState(m) {
  shared.state = m;
  for (const set of shared.handlers.values()) for (const on of set) on.state(m.state, m.retry);
}

/* This tab reads the stream for every tab, for as long as it lives (the lock with it). */
function lead() {
  return new Promise(() => {
    const wants = new Map(); // tab -> the games it shows
    const newest = new Map(); // game -> its newest summary, for a tab that asks for it later
    const say = (state, retry) => {
      const m = { t: "state", state, retry };
      shared.channel.postMessage(m);
      showState(m);
    };
    const all = () => [...new Set([...wants.values()].flat())].sort();
    const got = (gid, text) => {
      newest.set(gid, text);
      shared.channel.postMessage({ t: "summary", gid, data: text });
      deliver(gid, text);
    };
    // The tabs are told "live" once every stream is, and "reconnecting" while any one is.
    const states = [];
    const streams = [];
    const told = () => {
      const down = states.slice(0, streams.length).filter((s) => s && s.state !== "live");
      if (down.length) say("reconnecting", Math.max(0, ...down.map((s) => s.retry || 0)) || undefined);
      else if (states.slice(0, streams.length).every((s) => s)) say("live");
    };
    const stream = {
      changed() {
        const want = Math.min(MAX_STREAMS, Math.max(1, Math.ceil(all().length / STREAM_GAMES)));
        while (streams.length < want) {
          const k = streams.length;
          states[k] = null;
          streams.push(liveStream(() => all().slice(k * STREAM_GAMES, (k + 1) * STREAM_GAMES).join(","), got,
            (state, retry) => { states[k] = { state, retry }; told(); }));
        }
        while (streams.length > want) streams.pop().close();
        for (const one of streams) one.changed();
      },
      close() { for (const one of streams) one.close(); },
    };
    shared.lead = {
      want(m) {
        wants.set(m.tab, m.gids);
        for (const gid of m.gids) {
          const text = newest.get(gid);
          if (text === undefined) continue;
          shared.channel.postMessage({ t: "summary", gid, data: text });
          if (m.tab === TAB) deliver(gid, text);
        }
        if (shared.state) shared.channel.postMessage(shared.state);
        stream.changed();
      },
      bye(tab) { wants.delete(tab); stream.changed(); },
      close() { stream.close(); },
    };
    wants.set(TAB, [...shared.handlers.keys()]);
    shared.channel.postMessage({ t: "who" }); // the other tabs say which games they show
    stream.changed();
  });
}

/* /v1/streams/games for the games `ids()` names, opened again when they change (after a
 * short pause, so that a roll call's answers make one stream) and, once the browser gave up
 * reconnecting by itself (an error answer: a 503 while Redis restarts, a 502 from a proxy),
 * after 1 s doubling to 30 s. */
export function liveStream(ids, summary, state) {
  let es = null;
  let open = "";
  let retryMs = 1000;
  let retry = null;
  let pause = null;
  let closed = false;
  function connect() {
    if (es) es.close();
    es = null;
    clearTimeout(retry);
    open = ids();
    if (!open || closed) return;
    const mine = es = new EventSource("/v1/streams/games?ids=" + encodeURIComponent(open));
    mine.addEventListener("open", () => { retryMs = 1000; state("live"); });
    mine.addEventListener("error", () => {
      if (mine !== es) return;
      if (mine.readyState !== EventSource.CLOSED) { state("reconnecting"); return; }
      state("reconnecting", retryMs);
      retry = setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, 30000);
    });
    mine.addEventListener("summary", (ev) => {
      let gid;
      try { gid = JSON.parse(ev.data).id; } catch (e) { return; }
      summary(gid, ev.data);
    });
  }
  return {
    changed() {
      clearTimeout(pause);
      pause = setTimeout(() => { if (ids() !== open) connect(); }, 50);
    },
    close() { closed = true; clearTimeout(retry); clearTimeout(pause); if (es) es.close(); },
  };
}
