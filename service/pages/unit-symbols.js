/* Which symbol (symbols.js) stands for each unit kind of each game, and for the other pieces.
 * Pure (no DOM): tests/js/unit-symbols.test.js checks that every unit kind in each game's content
 * has a symbol that exists, and that no two kinds one player fields share one.
 *
 * Rite: by unit kind (rules/rite/content/factions.json), and the Firefly, rocks and fire tokens.
 * Factions: by stat line (the `archetype` each faction's unit code has in factions.json): all nine
 * factions share the 15 lines. Dragon Dale: by each tribe's unit (tribes.json), a leader's crown. */

export const UNIT_SYMBOLS = {
  rite: { knight: "sword", lightbringer: "star", cleric: "cross", angel: "wing", fighter: "fist", firebringer: "torch",
    sorcerer: "staff", wyrmling: "dragon", warrior: "axe", deathbringer: "skull", necromancer: "spiral", death: "ghost", thought: "eye",
    chaosbringer: "spark", doppelganger: "mask", hivemind: "block", hatchling: "egg", raptor: "paw", rex: "horns", ultimatosaur: "crown",
    firefly: "firefly", rock: "rock", fire: "flame" },
  factions: { militia: "spear", acolyte: "staff", bowman: "bow", healer: "cross", warrior: "axe", flyer: "wing",
    swordsman: "sword", conjuror: "spiral", gladiator: "shield", cavalry: "horseshoe", valkyrie: "bird", sorcerer: "flame",
    shaman: "eye", brute: "fist", archmage: "star" },
  dragondale: { raven: "bird", warriors: "axe", seers: "eye", ox: "horns", alanis: "crown", hunters: "bow", bards: "note",
    fynn: "crown", forest_animals: "paw", ovates: "leaf", maeve: "crown", sprites: "wing", shades: "ghost" },
};
