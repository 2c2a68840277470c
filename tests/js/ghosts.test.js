// What vanished since the viewer last acted (service/pages/ghosts.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { ghostsFor, piecesOf } from "../../service/pages/ghosts.js";

const board = (cells) => ({ cells: Object.entries(cells).map(([id, pieces]) => ({ id, pieces })) });
const knight = { label: "Knight", owner: 0 }, fighter = { label: "Fighter", owner: 1 };

test("a piece gone from the board is a ghost where it stood; a piece that moved is not", () => {
  const seen = { seq: 10, pieces: piecesOf(board({ a1: [knight], b2: [fighter] })) };
  const moved = board({ a2: [knight], b2: [fighter] });
  assert.equal(ghostsFor(seen, 12, moved), null);
  const gone = board({ a2: [knight] });
  assert.deepEqual(Object.keys(ghostsFor(seen, 12, gone)), ["b2"]);
  assert.equal(ghostsFor(seen, 12, gone).b2[0].label, "Fighter");
});

test("nothing is a ghost before the board moved on, or with nothing seen", () => {
  const seen = { seq: 12, pieces: piecesOf(board({ b2: [fighter] })) };
  assert.equal(ghostsFor(seen, 12, board({})), null);
  assert.equal(ghostsFor(null, 12, board({})), null);
});

test("a token standing for several pieces loses some: the ghost counts the ones gone", () => {
  const seen = { seq: 1, pieces: piecesOf(board({ camp: [{ label: "Warriors", owner: 0, count: 3, key: "vikings|units" }] })) };
  const now = board({ camp: [{ label: "Warriors", owner: 0, count: 1, key: "vikings|units" }] });
  const ghosts = ghostsFor(seen, 2, now);
  assert.equal(ghosts.camp.length, 1);
  assert.equal(ghosts.camp[0].count, 2);
});
