// Every unit kind of each game has a symbol of its own (service/pages/unit-symbols.js), drawn
// by symbols.js, read against the games' content files.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { SYMBOLS } from "../../service/pages/symbols.js";
import { UNIT_SYMBOLS } from "../../service/pages/unit-symbols.js";

const content = (game, name) => JSON.parse(readFileSync(new URL(`../../rules/${game}/content/${name}`, import.meta.url)));

function distinctAndDrawn(what, kinds, table) {
  const seen = new Map();
  for (const kind of kinds) {
    const s = table[kind];
    assert.ok(s, `${what}: ${kind} has no symbol`);
    assert.ok(SYMBOLS.includes(s), `${what}: ${kind}'s symbol "${s}" is not drawn`);
    assert.ok(!seen.has(s), `${what}: ${kind} and ${seen.get(s)} share "${s}"`);
    seen.set(s, kind);
  }
}

test("Rite: each faction's four units, and the volcano's pieces, each a symbol of its own", () => {
  const { factions } = content("rite", "factions.json");
  for (const [name, f] of Object.entries(factions)) distinctAndDrawn(`Rite ${name}`, [...f.units.map((u) => u.kind), "firefly", "rock", "fire"], UNIT_SYMBOLS.rite);
});

test("Factions: every stat line a symbol of its own, and every faction's unit of one", () => {
  const { factions } = content("factions", "factions.json");
  const lines = new Set(Object.values(factions).flatMap((f) => f.units.map((u) => u.archetype)));
  distinctAndDrawn("Factions", [...lines], UNIT_SYMBOLS.factions);
});

test("Dragon Dale: each tribe's units, each a symbol of its own", () => {
  const { tribes } = content("dragondale", "tribes.json");
  for (const [name, t] of Object.entries(tribes)) distinctAndDrawn(`Dragon Dale ${name}`, Object.keys(t.units), UNIT_SYMBOLS.dragondale);
});
