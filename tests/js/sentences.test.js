// The game in words (service/pages/sentences.js) and the seats' colours (seats.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { describeEvent, headline, moveAt, outcomeText, when, whoseTurn } from "../../service/pages/sentences.js";
import { SEAT_COLOURS, luminance, seatColour, seatName, textOn } from "../../service/pages/seats.js";

const summary = { seats: [{ seat: 0, name: "ann" }, { seat: 1, name: "bob" }], prompt: { seats: [1], kind: "take_action" } };

test("whose turn: the prompt's own text, else the seats' names and the prompt's kind", () => {
  assert.equal(whoseTurn({ ...summary, prompt: { ...summary.prompt, text: "bob (Goblins): take an action." } }), "bob (Goblins): take an action");
  assert.equal(whoseTurn(summary), "bob (take action)");
  assert.equal(whoseTurn(null), "—");
});

test("the outcome names the winners, the scores by name and the reason", () => {
  assert.equal(outcomeText(summary, { winners: [0], scores: [5, 3], reason: "shrines" }), "Won by ann; scores ann 5, bob 3 (shrines)");
  assert.equal(outcomeText(summary, { winners: [] }), "No winner");
  assert.equal(outcomeText(summary, null), "");
});

test("how long ago, in the largest whole unit", () => {
  const ago = (s) => new Date(Date.now() - s * 1000).toISOString();
  assert.equal(when(ago(1)), "just now");
  assert.equal(when(ago(30)), "30 s ago");
  assert.equal(when(ago(125)), "2 min ago");
  assert.equal(when(ago(7200)), "2 h ago");
  assert.equal(when(ago(3 * 86400)), "3 d ago");
  assert.equal(when("not a date"), "not a date");
});

test("an event in words: a command's notation, the platform's events, else its type and data", () => {
  assert.deepEqual(describeEvent(summary, { type: "boardlog.CommandAccepted", seat: 1, data: { text: "pass" } }), { who: "bob", what: "pass", kind: "command" });
  assert.deepEqual(describeEvent(summary, { type: "boardlog.CommandAccepted", seat: 0, data: { type: "g.move", args: { to: "a2" } } }),
    { who: "ann", what: 'g.move {"to":"a2"}', kind: "command" });
  assert.equal(describeEvent(summary, { type: "boardlog.GameCreated", data: { game: "rite", seats: [{ name: "ann" }, { name: "bob" }] } }).what,
    "game created: rite for ann, bob");
  assert.equal(describeEvent(summary, { type: "rite.Moved", seat: 7, data: {} }).who, "seat 7");
  assert.equal(moveAt([{ move: true, seq_from: 4 }, { move: true, seq_from: 9 }], 9).seq_from, 9);
  assert.equal(moveAt([], 9), null);
});

test("seats: a colour each, the ink on it readable, a name or 'seat n'", () => {
  assert.equal(seatColour(0), "#0072B2");
  assert.equal(seatColour(null), "#9aa0a6");
  assert.equal(seatColour(8), seatColour(0));
  assert.equal(textOn("#ffffff"), "#111111");
  assert.equal(textOn("#0072B2"), "#ffffff");
  assert.equal(textOn("#D55E00"), "#111111"); // white on vermillion was 3.87:1
  assert.equal(seatName(summary, 1), "bob");
  assert.equal(seatName(summary, 4), "seat 4");
});

test("the game as players call it: the headline, else the type's name and the seats", () => {
  assert.equal(headline({ headline: "Rite: ann vs bob, round 5" }, summary, "Rite"), "Rite: ann vs bob, round 5");
  assert.equal(headline(null, { ...summary, headline: "Rite: ann vs bob, round 2" }, "Rite"), "Rite: ann vs bob, round 2");
  assert.equal(headline({}, summary, "Dragon Dale"), "Dragon Dale: ann vs bob");
  assert.equal(headline(null, null, "Rite"), "Rite");
});

test("every seat's label is 4.5:1 or more on its colour (WCAG AA)", () => {
  const ratio = (a, b) => { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  for (const colour of SEAT_COLOURS) assert.ok(ratio(colour, textOn(colour)) >= 4.5, `${colour}: ${ratio(colour, textOn(colour)).toFixed(2)}:1`);
});
