// A replay step's changes in words (service/pages/step-words.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { changeItems, pieceName } from "../../service/pages/step-words.js";

const nameOf = (seat) => ["ann", "bob"][seat] || `seat ${seat}`;

test("a piece by the skin's name, else its label tidied, with its owner", () => {
  assert.equal(pieceName({ label: "knight", owner: 0 }, { piece: () => "Knight" }, nameOf), "Knight (ann)");
  assert.equal(pieceName({ label: "rune_stone" }, {}, nameOf), "Rune stone");
  assert.equal(pieceName({ label: "insight:vikings", owner: 1 }, {}, nameOf), "Insight vikings (bob)");
});

test("each kind of change is one line, in the skin's words for cells and terrain", () => {
  const w = { cell: (id) => ({ marsh1: "Marshland 1", ash: "Ash" })[id], terrain: (c) => ({ W: "Water" })[c] };
  const items = changeItems({
    moved: [{ label: "warriors", owner: 0, from: "marsh1", to: "ash" }],
    removed: [{ label: "tree", cell: "ash" }],
    relabelled: [{ cell: "c4", from: "c4 shr", to: "c4 shr*" }],
    terrain: [{ cell: "b2", from: "", to: "W" }],
    scores: [{ seat: 1, what: "VP", before: 3, after: 1 }],
    added: [{ label: "fire", cell: "b2" }],
  }, w, nameOf);
  assert.deepEqual(items, [
    ["moved", "Warriors (ann) moved Marshland 1 → Ash"],
    ["removed", "Tree removed from Ash"],
    ["relabelled", "c4: shr → shr*"],
    ["terrain", "b2: — → Water"],
    ["score", "bob: VP 3 → 1 (−2)"],
    ["added", "Fire added on b2"],
  ]);
});
