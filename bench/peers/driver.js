// The driver for the boardgame.io peer: N matches of the counter game, made and joined through
// the Lobby REST API (so every move carries its seat's credentials, as boardlog's commands carry
// a bearer token), each played by its two seats over socket.io, one connection per seat.
// Each match has one move in flight at a time: the seat whose turn it is emits its move and
// waits for the server's answer, the 'update' with the next _stateID (0.50 has no REST call for
// moves; the update is the answer, as ?wait=1's 200 is boardlog's).
//   node driver.js PORT MATCHES WARMUP_S SECONDS
// Prints "warm" when the measured window starts, then one JSON line:
// {"moves", "seconds", "errors", "latencies_ms": [...], "cpu_us"} (the driver's own CPU in the window).
const { io } = require('socket.io-client');

const [port, nMatches, warmupS, seconds] = process.argv.slice(2).map(Number);
const base = `http://127.0.0.1:${port}`;
const MOVE_TIMEOUT_MS = 5000;

async function post(path, body) {
  const r = await fetch(base + path, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

function connect(matchID, playerID, credentials) {
  return new Promise((resolve, reject) => {
    const socket = io(`${base}/counter`, { transports: ['websocket'], forceNew: true });
    const seat = { socket, playerID, credentials, stateID: null, waiter: null };
    socket.on('sync', (id, info) => {
      seat.stateID = info.state._stateID;
      resolve(seat);
    });
    socket.on('update', (id, state) => {
      if (seat.waiter && state._stateID >= seat.waiter.want) {
        const w = seat.waiter;
        seat.waiter = null;
        w.done(state);
      }
    });
    socket.on('connect', () => socket.emit('sync', matchID, playerID, credentials, 2));
    socket.on('connect_error', reject);
  });
}

async function makeMatch(i) {
  const { matchID } = await post('/games/counter/create', { numPlayers: 2 });
  const seats = [];
  for (const playerID of ['0', '1']) {
    const { playerCredentials } = await post(`/games/counter/${matchID}/join`,
      { playerID, playerName: `p${i}-${playerID}` });
    seats.push(await connect(matchID, playerID, playerCredentials));
  }
  return { matchID, seats, stateID: seats[0].stateID, turn: 0 };
}

function move(match) {
  const seat = match.seats[match.turn];
  const stateID = match.stateID;
  return new Promise((resolve) => {
    const timer = setTimeout(() => { seat.waiter = null; resolve(null); }, MOVE_TIMEOUT_MS);
    seat.waiter = {
      want: stateID + 1,
      done: (state) => { clearTimeout(timer); resolve(state); },
    };
    const action = {
      type: 'MAKE_MOVE',
      payload: { type: 'roll', args: [], playerID: seat.playerID, credentials: seat.credentials },
    };
    seat.socket.emit('update', action, stateID, match.matchID, seat.playerID);
  });
}

async function play(match, stopAt, out) {
  while (performance.now() < stopAt) {
    const t0 = performance.now();
    const state = await move(match);
    const ms = performance.now() - t0;
    if (state === null) { out.errors += 1; continue; }
    match.stateID = state._stateID;
    match.turn = Number(state.ctx.currentPlayer);
    if (out.latencies) out.latencies.push(ms);
    out.moves += 1;
  }
}

async function main() {
  const matches = [];
  for (let i = 0; i < nMatches; i++) matches.push(await makeMatch(i));
  const warm = { moves: 0, errors: 0, latencies: null };
  const warmStop = performance.now() + warmupS * 1000;
  await Promise.all(matches.map((m) => play(m, warmStop, warm)));
  process.stdout.write('warm\n');
  const out = { moves: 0, errors: 0, latencies: [] };
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(matches.map((m) => play(m, t0 + seconds * 1000, out)));
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(JSON.stringify({
    moves: out.moves, seconds: elapsed, errors: out.errors + warm.errors, latencies_ms: out.latencies,
    cpu_us: cpu.user + cpu.system,
  }) + '\n');
  for (const m of matches) for (const s of m.seats) s.socket.close();
}

main().catch((e) => { console.error(e); process.exit(1); });
