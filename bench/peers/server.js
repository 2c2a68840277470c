// boardgame.io 0.50's own Server (koa + socket.io, with its Lobby REST API on the same port)
// serving the counter game, with the storage named on the command line:
//   node server.js PORT inmemory
//   node server.js PORT flatfile DIR     (boardgame.io's FlatFile: node-persist files in DIR)
// It prints "ready PORT" once it listens.
const { Server, FlatFile } = require('boardgame.io/server');
const { Counter } = require('./game');

const [port, storage, dir] = process.argv.slice(2);
let db; // undefined: the Server's default storage, InMemory (FLATFILE_DIR unset)
if (storage === 'inmemory') {
  delete process.env.FLATFILE_DIR;
} else if (storage === 'flatfile') {
  if (!dir) throw new Error('flatfile needs a directory');
  db = new FlatFile({ dir });
} else {
  throw new Error(`storage is inmemory or flatfile, not ${storage}`);
}

const server = Server({ games: [Counter], db, origins: ['http://127.0.0.1'] });
server.run(Number(port), () => console.log(`ready ${port}`));
