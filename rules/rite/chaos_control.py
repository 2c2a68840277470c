"""Chaos control: the Chaos faction's effects the engine applies on its own (who may be flipped,
fog tiles, the end of temporary control, controlled units points, the Chaos victory, the Chaos
rites, Change of Thought and Rise Again with a controlled Necromancer). The Chaos commands that
use these are in `chaos`."""

from __future__ import annotations

from typing import Any

from .board import tiles_of
from .content import FACTIONS, UNITS
from .emitter import RiteEmitter
from .primal_base import jungle_immune
from .query import COMMANDERS, in_reserve, open_tile, react_choices, sacred
from .state import BOARD, RESERVE, State

# Modes whose prompt interrupts another; the interrupted mode rides in mctx[1] (not in `resume`,
# which the Undead reaction prompt uses and may stack on top).
SOLO_MODES = ("turn", "flow")


def chaos_seat(s: State) -> int:
    return s.seat_of("chaos")


def immune(s: State, uid: int) -> bool:
    """Beyond Chaos's reach: Fireflies, commanders, Humans under Sacred Grounds, Primals on jungle."""
    u = s.units[uid]
    if u.kind == "firefly" or u.kind in COMMANDERS or u.owner < 0 or u.where != BOARD:
        return True
    return sacred(s, uid) or jungle_immune(s, uid, chaos_seat(s))


def flippable(s: State, uid: int, chaos: int) -> bool:
    """An enemy unit (controlled by another player) that Chaos may take control of."""
    u = s.units[uid]
    return u.where == BOARD and 0 <= u.controller != chaos and not immune(s, uid)


def think_tiles(s: State, seat: int, already: list[int]) -> list[int]:
    """Think: open tiles next to the friendly Hive Mind, where Thoughts may also be summoned."""
    out: list[int] = []
    for u in s.units:
        if u.kind == "hivemind" and u.where == BOARD and u.controller == seat:
            out += [j for j in s.geo.nbr[u.tiles[0]] if open_tile(s, j) and j not in already]
    return out


# --- what the engine calls ----------------------------------------------------------------------


def on_settle(c: RiteEmitter) -> None:
    """Between steps: temporary control and Total Control end with the action; then fog flips."""
    s = c.s
    if s.mode in SOLO_MODES:
        for uid in s.held:
            u = s.units[uid]
            at = c.lab(u.tiles[0]) if u.tiles else None
            c.emit("UnitFlipped", {"uid": uid, "to": u.owner, "at": at, "why": "release"}, u.owner)
        if s.proxy >= 0:
            c.emit("ProxySet", {"seat": -1})
    fog(c)
    open_rise(c)


def fog(c: RiteEmitter) -> None:
    """A non-Chaos, unflipped unit on a fog tile is flipped: Chaos controls it."""
    s = c.s
    chaos = chaos_seat(s)
    if chaos < 0:
        return
    for t in tiles_of(s.kinds, "fog"):
        v = s.occ[t]
        if v >= 0:
            u = s.units[v]
            if u.controller == u.owner and u.owner != chaos and not immune(s, v):
                c.emit("UnitFlipped", {"uid": v, "to": chaos, "at": c.lab(t), "why": "fog"}, chaos)
                s = c.s


def score(c: RiteEmitter) -> None:
    """End of the round, step 8: controlled enemy units Chaos moved onto their own faction's
    summoning tiles score."""
    s = c.s
    chaos = chaos_seat(s)
    if chaos < 0:
        return
    for uid, u in enumerate(s.units):
        if u.where != BOARD or u.controller != chaos or u.owner < 0 or u.owner == chaos or uid not in s.delivered:
            continue
        t = u.tiles[0]
        if s.kinds[t] == "summon" and s.tfac[t] == s.factions[u.owner]:
            c.emit("UnitRemoved", {"uid": uid, "at": c.lab(t), "to": RESERVE, "why": "scored"}, chaos)
            c.emit("ControlledScored", {"seat": u.owner, "n": UNITS[u.kind].cost}, chaos)


def target(s: State) -> int:
    """Controlled units points Chaos needs per enemy faction (0: Chaos is not in play)."""
    if chaos_seat(s) < 0:
        return 0
    return int(FACTIONS["chaos"]["controlled_target"].get(str(len(s.factions)), 0))


def chaos_won(c: RiteEmitter) -> bool:
    s = c.s
    if not s.scored:
        return False
    chaos = chaos_seat(s)
    need = target(s)
    if need <= 0:
        return False
    if all(s.scored[i] >= need for i in range(len(s.factions)) if i != chaos):
        c.emit("GameWon", {"seat": chaos, "reason": f"{need} controlled units points for every enemy faction"})
        return True
    return False


def hive_tiles(s: State) -> list[int]:
    return [i for i, k in enumerate(s.kinds) if k == "summon" and open_tile(s, i)]


def rites(c: RiteEmitter) -> None:
    """Rite of Summoning (4 Chaos Bringers on enemy summoning tiles) and Rite of Power."""
    s = c.s
    chaos = chaos_seat(s)
    if chaos < 0:
        return
    ready = "summon:chaos" not in s.rites and s.mode in SOLO_MODES and not s.reacts
    if ready:
        n = 0
        for t in tiles_of(s.kinds, "summon"):
            v = s.occ[t]
            if v >= 0 and s.tfac[t] != "chaos":
                u = s.units[v]
                n += u.kind == "chaosbringer" and u.controller == chaos
        # The reserve and the open summoning tiles are looked for only once the rite is met (this
        # runs after every step).
        if n >= 4 and in_reserve(s, chaos, "hivemind") >= 0 and hive_tiles(s):
            c.emit("RiteDone", {"rite": "summon:chaos"}, chaos)
            c.mode("hiverite", [chaos, s.mode])
            return
    if s.players[chaos].level < 20:
        for u in s.units:
            if u.kind == "hivemind" and u.where == BOARD and u.controller == chaos:
                ring = s.geo.nbr[u.tiles[0]]
                if len(ring) == 6 and all(_rite_unit(s, s.occ[j], chaos) for j in ring):
                    c.emit("PowersUnlocked", {"seat": chaos, "level": 20, "rite": True}, chaos)


def _rite_unit(s: State, v: int, chaos: int) -> bool:
    if v < 0:
        return False
    w = s.units[v]
    return w.controller == chaos and (w.kind == "chaosbringer" or w.owner != chaos)


def hive_guard(c: RiteEmitter, uids: list[int], by: int, cause: str, attacker: int) -> list[int]:
    """Change of Thought: a Hive Mind about to be defeated next to a Thought waits for Chaos's
    choice (a prompt); the rest of the batch goes ahead."""
    s = c.s
    chaos = chaos_seat(s)
    if chaos < 0 or s.mode == "cot":
        return uids
    out = []
    # A Thought defeated in the same batch cannot stand in for the Hive Mind.
    batch = {s.units[x].tiles[0] for x in uids if s.units[x].where == BOARD}
    for uid in uids:
        u = s.units[uid]
        if u.kind == "hivemind" and u.where == BOARD and set(cot_thoughts(s, uid)) - batch:
            back = s.mode if s.mode in SOLO_MODES else "turn"
            ctx: list[Any] = [chaos, back, uid, by, cause, attacker]
            c.mode("cot", ctx)
            continue
        out.append(uid)
    return out


def chaos_rise(c: RiteEmitter, gone: list[tuple[int, int, int]]) -> None:
    """Rise Again of a Necromancer Chaos controls: enemy (of Chaos), non-Undead units defeated within
    range 3 let Chaos place a Warrior from the Undead reserve (a `crise` prompt, like the Undead's)."""
    s = c.s
    chaos = chaos_seat(s)
    und = s.seat_of("undead")
    if chaos < 0 or und < 0:
        return
    necros = [u.tiles[0] for u in s.units if u.kind == "necromancer" and u.where == BOARD and u.controller == chaos]
    if not necros:
        return
    tiles = [
        t for t, ctl, own in gone
        if ctl != chaos and (own < 0 or s.factions[own] != "undead") and any(s.geo.dist[n][t] <= 3 for n in necros)
    ]
    new = [t for t in tiles if t not in s.rises]
    if new:
        # Pending like the Undead reactions: the prompt opens once the command's step is done.
        c.emit("RisesPending", {"tiles": [c.lab(t) for t in (*s.rises, *new)]}, chaos)


def open_rise(c: RiteEmitter) -> None:
    """Open the `crise` prompt over whatever is current; that prompt (and its context) resumes after."""
    s = c.s
    if not s.rises or s.mode in ("crise", "simul"):
        return
    if rise_options(s, s.rises) == ["done"]:
        c.emit("RisesPending", {"tiles": []})
        return
    if s.reacts and s.mode not in ("react", "ultimatosaur") and react_choices(s) != ["done"]:
        # The Undead's reactions and Chaos's Rise Again wait at once and compete for the same tiles
        # and Warriors (General Rules: simultaneous effects): the active player, else the first in
        # turn order, says which resolves first.
        who = s.active if s.active >= 0 else s.order[0]
        c.mode("simul", [who, s.mode, list(s.mctx)])
        return
    c.mode("crise", [chaos_seat(s), s.mode, list(s.mctx)])


def react_below(s: State) -> bool:
    """Chaos's Rise Again was put first, over the Undead's waiting prompt (see `open_rise`)."""
    return s.mode == "crise" and s.mctx[1] == "react"


def rise_options(s: State, tiles: tuple[int, ...] | None = None) -> list[str]:
    und = s.seat_of("undead")
    if in_reserve(s, und, "warrior") < 0:
        return ["done"]
    lab = s.geo.labels
    return [*(f"rise:{lab[t]}" for t in (s.rises if tiles is None else tiles) if open_tile(s, t)), "done"]


def cot_thoughts(s: State, hive: int) -> list[int]:
    """Thoughts of the Hive Mind's controller next to it."""
    h = s.units[hive]
    out = []
    for j in s.geo.nbr[h.tiles[0]]:
        v = s.occ[j]
        if v >= 0 and s.units[v].kind == "thought" and s.units[v].controller == h.controller:
            out.append(j)
    return out
