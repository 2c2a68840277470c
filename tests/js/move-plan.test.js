// Click to move (service/pages/move-plan.js): the cells a command names, in order, and the
// commands a path of clicks completes, chained steps included.
import { test } from "node:test";
import assert from "node:assert/strict";
import { argCells, plan } from "../../service/pages/move-plan.js";

const ids = new Set(["a1", "a2", "b1", "b2", "c3", "spot:1"]);
const cells = (c) => argCells(c, ids);

test("a command's cells follow where a move starts before where it ends, whatever the key order", () => {
  assert.deepEqual(argCells({ args: { to: "b2", from: "a1" } }, ids), ["a1", "b2"]);
  assert.deepEqual(argCells({ args: { path: "a1-a2-b2" } }, ids), ["a1", "a2", "b2"]);
  assert.deepEqual(argCells({ args: { at: ["c3", "c3", "b1"] } }, ids), ["c3", "b1"]); // none twice in a row
  assert.deepEqual(argCells({ args: { unit: "KI", zz: "a2", aa: "a1" } }, ids), ["a1", "a2"]); // the rest by name
  assert.deepEqual(argCells({ args: { option: "spot:1" } }, ids), []); // split at ':' into "spot" and "1"
  assert.deepEqual(argCells({ args: {} }, ids), []);
});

const legal = [
  { type: "g.move", args: { from: "a1", to: "a2" }, text: "move a1 a2", sentence: "ann moves to a2." },
  { type: "g.move", args: { from: "a1", to: "b1" }, text: "move a1 b1" },
  { type: "g.pass", args: {}, text: "pass" },
  { type: "g.step", args: { to: "b2" }, text: "step b2", sentence: "ann steps to b2.", then: [{ type: "g.step", args: { to: "c3" }, text: "step c3" }] },
];

test("with nothing clicked, the first cells of the commands are the targets", () => {
  const p = plan(legal, [], cells);
  assert.deepEqual(p.next.sort(), ["a1", "b2"]);
  assert.deepEqual(p.complete.map((x) => x.c.text), ["pass"]);
});

test("a click narrows the choices, and a full path completes its command", () => {
  const p = plan(legal, ["a1"], cells);
  assert.deepEqual(p.next.sort(), ["a2", "b1"]);
  assert.deepEqual(p.complete, []);
  const done = plan(legal, ["a1", "b1"], cells);
  assert.deepEqual(done.complete.map((x) => x.c.text), ["move a1 b1"]);
  assert.deepEqual(done.next, []);
  assert.deepEqual(plan(legal, ["c3"], cells).fits, []);
});

test("a chained step is one more choice, its notation and sentence joined", () => {
  const p = plan(legal, ["b2", "c3"], cells);
  assert.equal(p.complete.length, 1);
  const chained = p.complete[0].c;
  assert.equal(chained.text, "step b2, then step c3");
  assert.equal(chained.sentence, "ann steps to b2. Then step c3.");
  assert.deepEqual(chained.chain.map((x) => x.text), ["step b2", "step c3"]);
  assert.deepEqual(plan(legal, ["b2"], cells).complete.map((x) => x.c.text), ["step b2"]);
});
