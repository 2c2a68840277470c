// A counter-like 2-player game for boardgame.io 0.50, the peer of boardlog's race test game:
// seats take turns rolling a die and adding it to their own counter; one move ends the turn.
// The die comes from boardgame.io's seeded random plugin, as race.roll draws from the game's Rng.
const Counter = {
  name: 'counter',
  setup: () => ({ counters: [0, 0] }),
  moves: {
    roll: ({ G, playerID, random }) => {
      G.counters[Number(playerID)] += random.D6();
    },
  },
  turn: { minMoves: 1, maxMoves: 1 },
};

module.exports = { Counter };
