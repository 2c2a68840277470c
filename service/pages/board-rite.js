/* Rite on the board page: tiles by name with a mark per kind and a legend, units as named
 * tokens with their card in the tooltip, and a panel per faction. Names and card text follow the
 * rulebook (the faction overview pages and the Tiles table). */
"use strict";

(() => {
  const { el } = BL;

  // Terrain in pale, low-saturation fills, so that no tile shares a colour with a faction's
  // tokens (the seat colours are saturated); each kind also has its own mark.
  const TILES = {
    basic: { name: "Basic tile", short: "", mark: "", fill: "#ece6d6", text: "No effect." },
    firelord: { name: "Firelord", short: "Firelord", mark: "♨", fill: "#4a2c2a", text: "Inaccessible. Volcano 4: defeats all units within range X/2 (the die, rounded down)." },
    firefly: { name: "Firefly tile", short: "Firefly", mark: "✶", fill: "#f4efc3", text: "Volcano 1 with its number: defeats the unit on it; with none, a Firefly appears; a Firefly there attacks the closest enemy unit." },
    earth: { name: "Earth Elemental", short: "Earth", mark: "▲", fill: "#a89a84", text: "Inaccessible. Volcano 2: defeats the unit on the side rolled and drops a rock there (a rock already there shatters, defeating all units next to it)." },
    fire: { name: "Fire Elemental", short: "Fire El.", mark: "♦", fill: "#d6a596", text: "Inaccessible. Volcano 3: defeats all units in a line from the side rolled, range = the round." },
    shrine: { name: "Shrine", short: "Shrine", mark: "✚", fill: "#dce7f1", text: "Humans' objective: a Cleric or Angel on it with 3 friendly units next to it activates it." },
    banner: { name: "Banner", short: "Banner", mark: "⚑", fill: "#e2e4ee", text: "Humans: friendly units on or next to it get +1 backup." },
    beacon: { name: "Fire beacon", short: "Beacon", mark: "☀", fill: "#fbe7cc", text: "Goblins' objective: a unit on it defeated by fire (Fireball, Breathe Fire, a fire token, Sign of the Dragon) activates it." },
    tunnel: { name: "Tunnel", short: "Tunnel", mark: "∩", fill: "#d6c6b3", text: "Goblins: tunnel tiles are adjacent to each other for Goblin units." },
    rune: { name: "Rune tile", short: "Rune", mark: "◈", fill: "#dedede", text: "Undead objective: a defeat of an enemy while a Necromancer or Death stands on it activates it." },
    boneyard: { name: "Boneyard", short: "Boneyard", mark: "☠", fill: "#c9c9c9", text: "Undead: summon a Warrior here for 1 energy." },
    summon: { name: "Summoning tile", short: "Summon", mark: "◎", fill: "#ffffff", text: "Its faction summons units here." },
    fog: { name: "Fog", short: "Fog", mark: "☁", fill: "#ece3ee", text: "Chaos: a non-Chaos unit that enters it flips to Chaos's control." },
    jungle: { name: "Jungle", short: "Jungle", mark: "♣", fill: "#cfe0c6", text: "Primals: a Primal unit on it cannot be affected by the volcano or enemies." },
  };
  const TAGS = { EE: "earth", FE: "fire", FL: "firelord", FF: "firefly", shr: "shrine", ban: "banner", bea: "beacon",
    tun: "tunnel", run: "rune", bon: "boneyard", fog: "fog", jun: "jungle" };
  const CODES = { H: "humans", G: "goblins", U: "undead", C: "chaos", P: "primals" };
  const FACTIONS = { humans: "Humans", goblins: "Goblins", undead: "Undead", chaos: "Chaos", primals: "Primals" };
  const OBJECTIVE = { humans: "shrine", goblins: "beacon", undead: "rune" };

  // name, short label for the token, cost, ability (rulebook unit tables)
  const UNITS = {
    knight: ["Knight", "Knight", 1, "Taunt: enemy units next to it may only act to defeat or take control of the Knight."],
    lightbringer: ["Light Bringer", "Light B.", 2, "Bring Light: +1 faction energy at the end of the round. Performs rites."],
    cleric: ["Cleric", "Cleric", 3, "Barrier: defeating the Cleric or a friendly unit next to it costs +2 energy."],
    angel: ["Angel", "Angel", "commander", "Fly (A): move anywhere for half the range. Protecting Wings. Divine Shield: +5 to defeat it or a friendly unit next to it."],
    fighter: ["Fighter", "Fighter", 1, "Slippery: may move over inaccessible tiles if it ends on an accessible one."],
    firebringer: ["Fire Bringer", "Fire B.", 2, "Bring Fire: +1 faction energy at the end of the round. Performs rites."],
    sorcerer: ["Sorcerer", "Sorcerer", 3, "Fireball (A): for X + Y energy, target a tile in range X; defeat the units there and next to it that cost Y or less."],
    wyrmling: ["Red Dragon Wyrmling", "Wyrmling", "commander", "Breathe Fire (A): X energy, X tiles in a line. Rage. Intelligent: defeated only when surrounded by 3 units of one player not next to each other."],
    warrior: ["Warrior", "Warrior", 1, "Necromancer's Presence: moves without energy while next to a friendly Necromancer."],
    deathbringer: ["Death Bringer", "Death B.", 2, "Bring Death: +1 faction energy at the end of the round. Performs rites."],
    necromancer: ["Necromancer", "Necro", 3, "Rise Again: when an enemy non-Undead unit within range 3 is defeated, you may place a Warrior on its tile."],
    death: ["Death", "Death", "commander", "Already Dead: cannot be defeated. Death's Presence. Soul Reaper."],
    thought: ["Thought", "Thought", 1, "Just a Thought (A): remove it to flip an adjacent enemy unit and take an action with it."],
    chaosbringer: ["Chaos Bringer", "Chaos B.", 2, "Bring Chaos: +1 faction energy at the end of the round. Performs rites."],
    doppelganger: ["Doppelganger", "Doppel.", 3, "Steal Identity: replace it with an adjacent enemy unit, flipping that unit."],
    hivemind: ["Hive Mind", "Hive Mind", "commander", "Change of Thought. Join (A): X energy flips an X-cost unit within range 3. Think."],
    hatchling: ["Hatchling", "Hatchling", 1, "Lonely Prey: defeating an enemy unit without backup costs 1 less."],
    raptor: ["Raptor", "Raptor", 2, "Surprise Attack: starting the turn on a jungle tile, its first defeat is free."],
    rex: ["Rex", "Rex", 3, "Roar: once per turn, move friendly units next to an adjacent enemy unit without energy."],
    ultimatosaur: ["Ultimatosaur", "Ultima.", "commander", "Grow. Breaker of Rocks. Charge. Takes three tiles."],
    firefly: ["Firefly", "Firefly", 2, "The volcano's unit: an enemy to every player; defeat it for 2 energy."],
  };
  // Two-letter codes for tokens on a small (phone) board; the legend lists them.
  const CODE = { knight: "Kn", lightbringer: "LB", cleric: "Cl", angel: "An", fighter: "Fi", firebringer: "FB", sorcerer: "So",
    wyrmling: "Wy", warrior: "Wa", deathbringer: "DB", necromancer: "Ne", death: "De", thought: "Th", chaosbringer: "CB",
    doppelganger: "Do", hivemind: "HM", hatchling: "Ha", raptor: "Ra", rex: "Rx", ultimatosaur: "Ul", firefly: "Ff" };
  const POWERS = {
    rally: "Rally", pilgrimage: "Pilgrimage", sacred: "Sacred Grounds", ascent: "Ascent",
    flames: "Lasting Flames", reborn: "Reborn in Flames", frenzy: "Frenzy", sign: "Sign of the Dragon",
    runes: "Runes of Summoning", undying: "Undying", rpower: "Runes of Power", ancestors: "Those Who Came Before",
    puppet: "Puppet", corrupt: "Corrupt", totalcontrol: "Total Control", puppets: "Master of Puppets",
    rush: "Rush", alpha: "Alpha", grouphunt: "Group Hunt", jaws: "Inescapable Jaws",
  };

  /* A tile's kind, number and state from the view's label ("d1 FEr5", "g1 SH", "c4 shr*"). */
  function tile(cell) {
    const rest = String(cell.label || "").slice(String(cell.id).length).trim();
    const out = { kind: "basic", n: null, faction: null, active: rest.endsWith("*") };
    const tag = out.active ? rest.slice(0, -1) : rest;
    if (!tag) return out;
    let m;
    if ((m = /^(EE|FE)r(\d+)$/.exec(tag))) { out.kind = TAGS[m[1]]; out.n = Number(m[2]); } else if ((m = /^FF(\d+)$/.exec(tag))) { out.kind = "firefly"; out.n = Number(m[1]); } else if ((m = /^S([HGUCP])$/.exec(tag))) { out.kind = "summon"; out.faction = CODES[m[1]]; } else if (TAGS[tag]) out.kind = TAGS[tag];
    else out.kind = tag;
    return out;
  }

  function unitCard(kind) {
    const u = UNITS[kind];
    if (!u) return null;
    return { name: u[0], short: u[1], cost: u[2], text: u[3] };
  }

  function seatOfFaction(view, faction) {
    const p = (view.board.players || []).find((x) => x.faction === faction);
    return p ? p.seat : null;
  }

  function board(view, ctx) {
    const b = view.board.board;
    const cells = b.cells.map((c) => {
      const t = tile(c);
      const info = TILES[t.kind] || { name: t.kind, short: t.kind, mark: "", fill: "#eeeeee", text: "" };
      let name = info.short;
      let full = info.name;
      if (t.kind === "firefly") { name = `Firefly ${t.n}`; full = `Firefly tile ${t.n}`; }
      if (t.kind === "earth" || t.kind === "fire") full += ` (turned ${t.n})`;
      if (t.kind === "summon" && t.faction) full = `Summoning tile of the ${FACTIONS[t.faction]}`;
      if (t.active) { name += " ✓"; full += " (activated)"; }
      const owner = t.faction ? seatOfFaction(view, t.faction) : null;
      const pieces = (c.pieces || []).map((p) => {
        if (p.label === "rock") return { label: ctx.compact ? "R" : "Rock", owner: null, fill: "#555555", square: true, title: "Rock token: the tile is inaccessible until it is removed (1 energy, next to a friendly unit)." };
        if (p.label === "fire") return { label: ctx.compact ? "F" : "Fire", owner: null, fill: "#8c1c13", square: true, title: "Fire token: a non-commander unit entering it is defeated." };
        const card = unitCard(p.label);
        if (p.label === "firefly") return { label: ctx.compact ? "Ff" : "Firefly", owner: null, fill: "#f6e05e", ink: "#111", square: true, title: `Firefly (volcano): ${card.text}` };
        const who = Number.isInteger(p.owner) ? ctx.names[p.owner] || `seat ${p.owner}` : "the volcano";
        const flipped = p.flipped ? ` — owned by ${ctx.names[p.owned_by] || "seat " + p.owned_by}, controlled by Chaos` : "";
        const under = p.under && p.under.length ? ` Underneath: ${p.under.map((k) => (unitCard(k) || { name: k }).name).join(", ")}.` : "";
        if (!card) return { ...p, title: `${p.label} (${who})` };
        return { label: ctx.compact ? CODE[p.label] || card.short : card.short, owner: p.owner, key: `${p.label}|${p.owner}`, stroke: p.flipped ? "#CC79A7" : null,
          title: `${card.name} (${who}${flipped}) — cost ${card.cost}. ${card.text}${under}` };
      });
      return { ...c, name: ctx.compact ? "" : name, mark: info.mark, fill: info.fill, ring: owner !== null ? BL.seatColour(owner) : null,
        tip: `${c.id} — ${full}${info.text ? ": " + info.text : ""}`, pieces };
    });
    return { board: { ...b, cells }, overlays: [] };
  }

  function legend(view, ctx) {
    const seen = new Set(view.board.board.cells.map((c) => tile(c).kind));
    const items = Object.entries(TILES).filter(([k]) => seen.has(k)).map(([k, t]) =>
      el("li", { title: t.text }, el("span", { class: "tile-swatch", style: `background:${t.fill}` }, t.mark), el("b", {}, t.name), " — ", t.text));
    items.push(el("li", {}, el("span", { class: "tile-swatch", style: "background:#555;color:#fff" }, "■"), el("b", {}, "Rock"), " — inaccessible until removed."));
    items.push(el("li", {}, el("span", { class: "tile-swatch", style: "background:#8c1c13;color:#fff" }, "■"), el("b", {}, "Fire token"), " — defeats a non-commander unit that enters."));
    items.push(el("li", {}, el("span", { class: "tile-swatch", style: "background:#f6e05e" }, "■"), el("b", {}, "Firefly"), " — the volcano's unit."));
    items.push(el("li", {}, el("span", { class: "tile-swatch ring" }, "◎"), "A ring in a faction's colour: that faction's summoning tile. ✓ marks an activated objective tile."));
    if (ctx && ctx.compact) {
      const kinds = new Set();
      for (const c of view.board.board.cells) for (const p of c.pieces || []) kinds.add(p.label);
      const units = Object.entries(CODE).filter(([k]) => kinds.has(k)).map(([k, code]) => `${code} ${UNITS[k][0]}`);
      if (units.length) items.unshift(el("li", {}, el("b", {}, "Units: "), units.join(", "), ". R rock, F fire token."));
    }
    return el("ul", { class: "tile-legend" }, items);
  }

  function objective(view, p) {
    const cells = view.board.board.cells.map(tile);
    const kind = OBJECTIVE[p.faction];
    if (kind) {
      const all = cells.filter((t) => t.kind === kind);
      const done = all.filter((t) => t.active).length;
      return `${done} of ${all.length} ${TILES[kind].name.toLowerCase()}s activated`;
    }
    if (p.faction === "chaos" && p.controlled_units_points) {
      const pts = Object.entries(p.controlled_units_points).map(([f, n]) => `${FACTIONS[f] || f} ${n}`).join(", ");
      return `controlled units points ${pts} (needs ${p.controlled_target} of each)`;
    }
    if (p.faction === "primals") return `${p.consumed || 0} of 12 consumed units points`;
    return "—";
  }

  function panels(view, ctx) {
    const v = view.board;
    const order = v.turn_order || [];
    return (v.players || []).map((p) => {
      const you = p.seat === ctx.seat;
      const units = Object.entries(p.reserve || {}).map(([k, n]) => `${(unitCard(k) || { name: k }).name} ×${n}`).join(", ") || "none";
      const powers = (p.powers || []).map((c) => {
        const name = c.power ? POWERS[c.power] || c.power : null;
        return el("li", { class: c.face_up ? "" : "muted" },
          `${c.number}: `, name ? el("b", {}, name) : "face down",
          c.face_up ? ` (${c.slots_left} use${c.slots_left === 1 ? "" : "s"} left)` : name ? (you ? " (face down; only you see it)" : " (face down; the others do not see it)") : "");
      });
      const pos = order.indexOf(p.seat);
      const facts = [
        ["Turn order", p.passed ? "passed" : pos >= 0 ? `${pos + 1} of ${order.length}` : "—"],
        ["Round energy", p.round_energy], ["Reserve energy", p.reserve_energy], ["Faction energy", p.faction_energy],
      ];
      if (p.faction === "goblins") facts.push(["Rage", p.rage]);
      facts.push(["Objective", objective(view, p)], ["On the board", `${p.on_board} unit${p.on_board === 1 ? "" : "s"}`], ["Reserve", units]);
      const hand = (v.hands || [])[p.seat];
      if (hand && hand.length) facts.push(["Tiles in hand", String(hand.length)]);
      return BL.playerPanel(ctx, p.seat, FACTIONS[p.faction] || p.faction, facts,
        el("div", {}, el("h4", {}, "Powers"), el("ul", { class: "powers" }, powers)), you);
    });
  }

  function status(view) {
    const v = view.board;
    const vol = v.volcano || {};
    return `Round ${v.round}${vol.last_die ? ` · last volcano roll ${vol.last_die}` : ""}`;
  }

  /* The viewer's side: its faction's summoning tiles. */
  function home(view, seat) {
    const p = (view.board.players || []).find((x) => x.seat === seat);
    if (!p) return [];
    const code = Object.entries(CODES).find(([, f]) => f === p.faction);
    return view.board.board.cells.filter((c) => { const t = tile(c); return t.kind === "summon" && code && t.faction === p.faction; }).map((c) => c.id);
  }

  function cellsOf(cmd) {
    const a = cmd.args || {};
    const t = cmd.type.split(".")[1];
    if (t === "move" || t === "umove") return (a.path || []).flatMap((x) => String(x).split("+").slice(0, 1));
    if (t === "defeat") return [a.from, a.target].filter(Boolean);
    if (t === "pay") return [];
    return null; // the generic reading of the arguments
  }

  BL.skins.rite = { board, legend, panels, home, cellsOf, status, rules: "/rules/rite" };
})();
