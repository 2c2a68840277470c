/* A game's clock in words (events/domain/platform/clock.py's summary `clock`): the countdown of
 * each running deadline, the time left of a stopped one, who is on vacation. BLClock.mount(dd,
 * getSummary, names) keeps a summary fact ticking once a second. */

function span(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
  if (d) return `${d} d ${h} h`;
  if (h) return `${h} h ${m} min`;
  if (m) return `${m} min ${s % 60} s`;
  return `${s} s`;
}

/* The seat's own clock as a short text, for a row of /me: "2 h 5 min left", "stopped (4 h left)". */
function seatText(deadline, leftMs, away, now) {
  if (deadline) {
    const ms = Date.parse(deadline) - (now || Date.now());
    return ms > 0 ? `${span(ms)} left` : "time is up";
  }
  if (typeof leftMs === "number") return `${away ? "on vacation" : "stopped"} (${span(leftMs)} left)`;
  return "";
}

/* Every seat's clock, for the board: "ann: 2 h 5 min left · bob on vacation (3 d left)". */
function text(clock, names, now) {
  if (!clock) return "";
  const parts = [];
  for (const [seat, at] of Object.entries(clock.deadlines || {})) {
    parts.push(`${names[seat] || "seat " + seat}: ${seatText(at, null, false, now)}`);
  }
  for (const [seat, ms] of Object.entries(clock.left_ms || {})) {
    const away = (clock.vacation || []).includes(Number(seat));
    parts.push(`${names[seat] || "seat " + seat}: ${seatText(null, ms, away, now)}`);
  }
  for (const seat of clock.vacation || []) {  // away, though the game waits on another seat now
    if (!(String(seat) in (clock.deadlines || {})) && !(String(seat) in (clock.left_ms || {}))) {
      parts.push(`${names[seat] || "seat " + seat}: on vacation`);
    }
  }
  const why = { timeout: "the game waits after a timeout", dispute: "stopped while a dispute is open" }[clock.stopped_by];
  if (why) parts.push(why);
  return parts.join(" · ");
}

function rule(clock) {
  const h = (s) => span(s * 1000);
  let out = `${h(clock.per_move)} a move`;
  if (clock.bank) out += ` + a ${h(clock.bank)} bank (+${h(clock.increment)} a move)`;
  return out + `; on timeout: ${{ skip: "the platform answers", forfeit: "forfeit", pause: "the game waits" }[clock.on_timeout] || clock.on_timeout}`;
}

function mount(dd, box, getSummary, getNames) {
  const tick = () => {
    const s = getSummary();
    const clock = s && s.status === "active" ? s.clock : null;
    box.classList.toggle("hidden", !clock);
    if (!clock) return;
    dd.textContent = text(clock, getNames(), Date.now()) || "—";
    dd.title = rule(clock);
  };
  tick();
  setInterval(tick, 1000);
  return tick;
}

export const BLClock = { span, seatText, text, rule, mount };
