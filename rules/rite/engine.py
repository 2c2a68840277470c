"""Resolution machinery: defeats and their triggers, rites, victory, turn hand-over, the end of
the round and the volcano."""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Iterable

from rules.core import IllegalCommand, Outcome

from . import chaos_control
from .board import ACCESSIBLE_KINDS, tiles_of
from .content import FACTIONS, ROCKS
from .emitter import RiteEmitter
from .primal_base import UNDER, buries, jungle_immune, rite_of_power, victory
from .primal_evolve import after_defeat
from .query import (
    COMMANDERS,
    defeatable,
    destination,
    in_reserve,
    open_tile,
    payer,
    react_choices,
    reaction_options,
)
from .state import BOARD, VOLCANO, State, revise, uids_of

FIRE_CAUSES = frozenset({"fireball", "breathe", "token", "sign"})
BRINGERS = ("lightbringer", "firebringer", "deathbringer", "chaosbringer")
EOR_STEPS = ("eor", "v_roll", "v_firefly", "v_earth", "v_fire", "v_firelord", "newround")


def offered(opt: str, options: Iterable[str]) -> None:
    """Refuse an answer the prompt does not offer."""
    if opt not in options:
        raise IllegalCommand("bad_option", f"{opt} is not a choice here")


def chose_done(c: RiteEmitter, opt: str, options: Iterable[str]) -> bool:
    """Refuse an answer not offered; `done` hands the turn back. True when nothing is left to do."""
    offered(opt, options)
    if opt == "done":
        c.mode("turn")
        return True
    return False


def rage_choices(s: State, seat: int, cost: int) -> range:
    """How much rage may pay towards a Wyrmling action of `cost`: the rest comes from round and
    reserve energy, at least 1 of it (Goblin notes); empty when the action cannot be paid."""
    p = s.players[payer(s, seat)]
    return range(max(0, cost - p.round_e - p.reserve_e), min(p.rage, cost - 1) + 1)


def pay(c: RiteEmitter, seat: int, cost: int, rage_ok: bool = False, rage: int = 0) -> None:
    """Spend `rage` rage (a Wyrmling action, the player's choice: `rage_choices`), then round
    energy, then reserve; never faction energy. Round before reserve is no choice: it leaves at
    least as much in every case (RULINGS, Turn)."""
    if cost == 0:
        return
    s = c.s
    p = s.players[payer(s, seat)]
    if rage and not (rage_ok and rage in rage_choices(s, seat, cost)):
        raise IllegalCommand("bad_rage", f"{rage} rage cannot pay towards that ({cost} energy)")
    r = min(p.round_e, cost - rage)
    v = min(p.reserve_e, cost - rage - r)
    if r + v + rage < cost:
        raise IllegalCommand("not_enough_energy", f"that costs {cost} energy")
    c.emit("EnergySpent", {"seat": payer(s, seat), "round": r, "reserve": v, "rage": rage}, seat)


def warrior_placed(c: RiteEmitter, seat: int) -> None:
    """Undead faction energy: one per Warrior placed by the Necromancer, a boneyard or a power."""
    c.gain(seat, 1)


def place_unit(c: RiteEmitter, uid: int, tile: int, how: str) -> None:
    """Put a unit on a tile; a non-commander entering a fire token is defeated by the Goblins."""
    s = c.s
    c.emit("UnitPlaced", {"uid": uid, "at": c.lab(tile), "how": how}, s.units[uid].owner)
    enter(c, uid, tile)


def pass_through(c: RiteEmitter, tiles: list[int]) -> None:
    """Lasting Flames: "If a unit or rock enters a tile with a fire token, remove the fire token."
    Every tile a move enters on the way loses its token too (rules version 3; only a commander,
    which the token does not hurt, passes one: it ends anyone else's move, `query.reach`)."""
    if c.s.rules < 3:
        return
    for t in tiles:
        if t in c.s.fire:
            c.emit("FireTokenRemoved", {"at": c.lab(t)})


def enter(c: RiteEmitter, uid: int, tile: int) -> None:
    s = c.s
    if tile in s.fire:
        c.emit("FireTokenRemoved", {"at": c.lab(tile)})
        u = s.units[uid]
        if u.kind not in COMMANDERS:
            protected = "sacred" in s.rflags and u.controller >= 0 and s.factions[u.controller] == "humans" and (
                s.kinds[tile] == "shrine" or any(s.kinds[j] == "shrine" for j in s.geo.nbr[tile])
            )
            protected = protected or jungle_immune(s, uid, s.seat_of("goblins"))
            if not protected:
                defeat(c, [uid], s.seat_of("goblins"), "token")


def defeat(c: RiteEmitter, uids: list[int], by: int, cause: str, attacker: int = -1) -> None:
    """Defeat units at once, with every trigger: faction energy, rage, beacons, runes, Undead reactions."""
    uids = chaos_control.hive_guard(c, uids, by, cause, attacker)
    s = c.s
    gob = s.seat_of("goblins")
    und = s.seat_of("undead")
    react: list[int] = list(s.reacts)
    gone: list[tuple[int, int, int]] = []  # (tile, controller, owner) of each defeated unit
    done = []
    runes = 0  # rune activations earned: one per non-Undead unit the Undead defeat
    for uid in uids:
        s = c.s
        u = s.units[uid]
        if u.where != BOARD:
            continue
        tile = u.tiles[0]
        gone.append((tile, u.controller, u.owner))
        to = UNDER if buries(s, uid, attacker) else destination(s, uid)
        c.emit(
            "UnitDefeated",
            {"uid": uid, "at": c.lab(tile), "by": by, "cause": cause, "to": to},
            by if by >= 0 else None,
        )
        if to == UNDER:
            c.emit("UnitBuried", {"uid": uid, "host": attacker}, by)
        done.append((uid, u))
        s = c.s
        if gob >= 0:
            c.gain(gob, (1 if by == gob else 0) + (1 if u.owner == gob else 0))
        if attacker >= 0 and s.units[attacker].kind == "wyrmling":
            c.emit("RageGained", {"seat": s.units[attacker].controller, "n": 1})
        if cause in FIRE_CAUSES and s.kinds[tile] == "beacon" and tile not in s.activated:
            c.emit("TileActivated", {"at": c.lab(tile)})
        if und >= 0 and (u.owner < 0 or s.factions[u.owner] != "undead"):
            if by == und:
                runes += 1
            if cause != "rock" and tile not in react:
                react.append(tile)
    if runes:
        _runes(c, und, runes)
    if und >= 0 and tuple(react) != c.s.reacts:
        live = [t for t in react if reaction_options(c.s, t)]
        if tuple(live) != c.s.reacts:
            c.emit("ReactionsPending", {"tiles": [c.lab(t) for t in live]})
    if cause != "rock":
        chaos_control.chaos_rise(c, gone)
    if done and "primals" in c.s.factions:
        after_defeat(c, done, by, cause, attacker)


def rune_candidates(s: State, und: int) -> list[int]:
    """Non-activated rune tiles a friendly Necromancer or Death stands on (Undead: Objective)."""
    out = []
    for kind in ("necromancer", "death"):
        for uid in uids_of(s, kind):
            u = s.units[uid]
            if u.where == BOARD and u.controller == und:
                t = u.tiles[0]
                if s.kinds[t] == "rune" and t not in s.activated:
                    out.append(t)
    return sorted(out)


def _runes(c: RiteEmitter, und: int, earned: int) -> None:
    """Activate runes for `earned` defeats, one rune each. When more runes could light than the
    defeats earn, which ones is the Undead player's choice: they wait as `RunesPending` (with the
    runes the Necromancers and Death stand on now, before Soul Reaper moves Death) and `settle`
    opens the `rune` prompt before anything else."""
    s = c.s
    tiles = [t for t in rune_candidates(s, und) if t not in s.runes]
    due = earned + s.runes_due
    tiles = [*s.runes, *tiles]
    if len(tiles) <= due:
        for t in tiles:
            c.emit("TileActivated", {"at": c.lab(t)}, und)
        if s.runes:
            c.emit("RunesPending", {"tiles": [], "n": 0}, und)
        return
    c.emit("RunesPending", {"tiles": [c.lab(t) for t in tiles], "n": due}, und)


# --- rites and victory -------------------------------------------------------------------------


def _objectives(s: State, kind: str) -> tuple[int, ...]:
    """Tiles of one kind (a memo of the map, which never changes during play)."""
    return tiles_of(s.kinds, kind)


def check_rites(c: RiteEmitter) -> None:
    """Rites of Summoning and of Power are checked whenever the position changes."""
    s = c.s
    for seat, fac in enumerate(s.factions):
        d = FACTIONS[fac]
        if fac == "primals":
            if s.players[seat].level < 20 and rite_of_power(s, seat):
                c.emit("PowersUnlocked", {"seat": seat, "level": 20, "rite": True}, seat)
                s = c.s
            continue
        obj, bringer, commander = d["objective"], d["bringer"], d["commander"]
        tiles = _objectives(s, obj)
        if not tiles:
            continue
        if f"summon:{fac}" not in s.rites:
            # Settle checks this after every event: the board test is cheap, the reserve scan not.
            occ, units = s.occ, s.units
            for t in tiles:
                if t in s.activated and open_tile(s, t):
                    n = 0
                    for j in s.geo.nbr[t]:
                        v = occ[j]
                        if v >= 0 and units[v].kind == bringer and units[v].controller == seat:
                            n += 1
                    if n >= 4:
                        cuid = in_reserve(s, seat, commander)
                        if cuid < 0:
                            break
                        c.emit("RiteDone", {"rite": f"summon:{fac}"}, seat)
                        place_unit(c, cuid, t, "rite")
                        s = c.s
                        break
        if s.players[seat].level < 20:
            cmd = False
            ok = True
            for t in tiles:
                v = s.occ[t]
                k = s.units[v].kind if v >= 0 and s.units[v].controller == seat else ""
                if k == commander and not cmd:
                    cmd = True
                elif k != bringer:
                    ok = False
                    break
            if ok and cmd:
                c.emit("PowersUnlocked", {"seat": seat, "level": 20, "rite": True}, seat)
                s = c.s
    chaos_control.rites(c)


def check_victory(c: RiteEmitter) -> bool:
    s = c.s
    for seat, fac in enumerate(s.factions):
        if fac == "primals":
            why = victory(s)
            if why:
                c.emit("GameWon", {"seat": seat, "reason": why})
                return True
        tiles = _objectives(s, FACTIONS[fac]["objective"])
        if tiles and len(tiles) <= len(s.activated) and all(t in s.activated for t in tiles):
            c.emit("GameWon", {"seat": seat, "reason": f"all {FACTIONS[fac]['objective']} tiles activated"})
            return True
    return chaos_control.chaos_won(c)


def outcome(s: State) -> Outcome | None:
    """The result once the game is won: the winner, and each seat's progress as its score
    (objective tiles activated; the Primals' consumed units points; Chaos's controlled units
    points, all factions together)."""
    if s.phase != "over":
        return None
    scores = tuple(
        s.consumed if f == "primals" else len([t for t in s.activated if _owner(s, t) == i])
        for i, f in enumerate(s.factions)
    )
    if "chaos" in s.factions and s.scored:
        k = s.seat_of("chaos")
        scores = (*scores[:k], sum(s.scored), *scores[k + 1:])
    return Outcome((s.winner,), scores, s.reason)


def _owner(s: State, t: int) -> int:
    """The seat whose objective tiles are of tile `t`'s kind (-1: none)."""
    for i, f in enumerate(s.factions):
        if FACTIONS[f]["objective"] == s.kinds[t]:
            return i
    return -1


# --- turns -------------------------------------------------------------------------------------


def action_limit(s: State) -> int:
    return 2 if "frenzy" in s.rflags and s.factions[s.active] == "goblins" else 1


def need_action(s: State) -> None:
    """Refuse a second action that requires energy (two under Frenzy for the Goblins)."""
    if s.actions >= action_limit(s):
        raise IllegalCommand("action_taken", "you have already taken your action this turn")


def next_turn(c: RiteEmitter) -> None:
    """Hand the turn to the next player in turn order who has not passed, or end the round."""
    s = c.s
    if "jaws" in s.rflags and s.active >= 0 and s.factions[s.active] == "primals" and not s.players[s.active].passed:
        # Inescapable Jaws: the Primal player's turns follow each other until he passes.
        c.emit("TurnStarted", {"seat": s.active}, s.active)
        return
    order = s.order
    n = len(order)
    k = order.index(s.active) if s.active in order else -1
    for step in range(1, n + 1):
        seat = order[(k + step) % n]
        if not s.players[seat].passed:
            c.emit("TurnStarted", {"seat": seat}, seat)
            return
    c.emit("FlowQueued", {"steps": list(EOR_STEPS)})
    c.rest = None


def settle(c: RiteEmitter, has_free: Callable[[State], bool]) -> None:
    """Drive every automatic step until someone must choose (or the game is over).

    `has_free` (legal.has_free, wired by decide.py) says whether the active player still has a
    free option after the action: it needs every command module, which all build on this one."""
    for _ in range(10_000):
        s = c.s
        if s.mode == "over":
            return
        chaos_control.on_settle(c)
        if c.s.runes_due and c.s.mode != "rune":
            # which runes light is decided before rites and victory are looked at
            c.mode("rune", [s.seat_of("undead"), c.s.mode, list(c.s.mctx)])
            return
        check_rites(c)
        if check_victory(c):
            return
        s = c.s
        if s.reacts and s.mode not in ("react", "ultimatosaur", "simul") and not chaos_control.react_below(s):
            # (a Rex evolving into Ultimatosaur is placed first: Evolve happens immediately)
            if react_choices(s) != ["done"]:
                # the interrupted prompt's context rides along, to be restored afterwards
                c.mode("react", [False, *s.mctx], resume=s.mode)
                return
            c.emit("ReactionsPending", {"tiles": []})
            continue
        if s.mode == "flow":
            if c.flow_events:  # rules version 1
                step = s.queue[0]
                c.emit("FlowStepped", {"step": step})
            else:
                queue = s.queue if c.rest is None else c.rest
                step, c.rest = queue[0], queue[1:]
            run_step(c, step)
            continue
        if s.mode == "turn":
            p = s.players[s.active]
            if p.passed or (s.actions >= action_limit(s) and not has_free(s)):
                next_turn(c)
                continue
        return
    raise AssertionError("settle did not converge")


# --- end of the round and the volcano ----------------------------------------------------------


def run_step(c: RiteEmitter, step: str) -> None:
    s = c.s
    volcano, fireflies, elementals, firelord = s.opts
    if step == "eor":
        end_of_round(c)
    elif step == "v_roll":
        if volcano:
            c.emit("VolcanoRolled", {"die": c.rng.randint(1, 6)}, s.order[0])
    elif not volcano:
        if step == "newround":
            _new_round(c)
    elif step == "v_firefly":
        if fireflies:
            firefly_step(c)
    elif step == "v_earth":
        if elementals:
            earth_step(c)
    elif step == "v_fire":
        if elementals:
            fire_step(c)
    elif step == "v_firelord":
        if firelord:
            g = s.geo
            centre = g.rings[0][0]
            rng_ = s.die // 2
            victims = [
                v for v in (s.occ[i] for i in range(g.size) if g.dist[centre][i] <= rng_)
                if v >= 0 and defeatable(s, v, VOLCANO, "volcano")
            ]
            if victims:
                defeat(c, victims, VOLCANO, "volcano")
    elif step == "newround":
        _new_round(c)


def _new_round(c: RiteEmitter) -> None:
    c.emit("RoundStarted", {"round": c.s.round})
    c.rest = None  # the flow is over
    c.emit("TurnStarted", {"seat": c.s.order[0]}, c.s.order[0])


def end_of_round(c: RiteEmitter) -> None:
    """Steps 1-8 of the end of the round."""
    s = c.s
    hum = s.seat_of("humans")
    g = s.geo
    # 1. shrines
    if hum >= 0:
        for t in _objectives(s, "shrine"):
            if t in s.activated:
                continue
            v = s.occ[t]
            if v >= 0 and s.units[v].controller == hum and s.units[v].kind in ("cleric", "angel"):
                n = sum(1 for j in g.nbr[t] if s.occ[j] >= 0 and s.units[s.occ[j]].controller == hum)
                if n >= 3:
                    c.emit("TileActivated", {"at": c.lab(t)}, hum)
        s = c.s
        if check_victory(c):
            return
    # 2-3. turn order from the pass track; round marker
    order = list(s.passed) + [x for x in s.order if x not in s.passed]
    rnd = min(10, s.round + 1)
    # 5. faction energy at the end of the round
    fe = [p.faction_e for p in s.players]
    for u in s.units:
        if u.where == BOARD and u.controller >= 0 and u.kind in BRINGERS:
            fe[u.controller] += 1
    if hum >= 0:
        near: set[int] = set()
        for t in s.activated:
            if s.kinds[t] == "shrine":
                near.add(t)
                near.update(g.nbr[t])
        fe[hum] += sum(1 for t in near if s.occ[t] >= 0 and s.units[s.occ[t]].controller == hum)
    rows = []
    for seat, p in enumerate(s.players):
        reserve = min(10, p.reserve_e + min(10, fe[seat]))
        level = p.level
        total = rnd + reserve
        for th in (5, 10, 15, 20):
            if total >= th and level < th:
                level = th
        rows.append([rnd, reserve, 0, level])
    c.emit("RoundEnded", {"round": rnd, "order": order, "players": rows})
    # 8. Chaos scores controlled units points
    chaos_control.score(c)


def _closest_targets(s: State, start: int) -> list[tuple[int, int]]:
    """Non-commander enemy units nearest a Firefly by a path it may take (fire tokens block it)."""
    g = s.geo
    seen = {start: 0}
    dq: deque[int] = deque([start])
    found: list[tuple[int, int]] = []
    limit = -1
    while dq:
        cur = dq.popleft()
        d = seen[cur]
        if limit >= 0 and d >= limit:
            break
        for j in g.nbr[cur]:
            if j in seen or s.kinds[j] not in ACCESSIBLE_KINDS or j in s.rocks or j in s.fire:
                continue
            seen[j] = d + 1
            v = s.occ[j]
            if v >= 0:
                w = s.units[v]
                if w.controller == VOLCANO:
                    dq.append(j)
                elif w.kind not in COMMANDERS and defeatable(s, v, VOLCANO, "firefly"):
                    found.append((j, v))
                    limit = d + 1
                continue
            dq.append(j)
    return found


def firefly_step(c: RiteEmitter) -> None:
    s = c.s
    tile = next((i for i, k in enumerate(s.kinds) if k == "firefly" and s.tnum[i] == s.die), -1)
    if tile < 0:
        return
    v = s.occ[tile]
    if v < 0:
        if tile not in s.rocks:
            ff = in_reserve(s, VOLCANO, "firefly")
            if ff >= 0:
                place_unit(c, ff, tile, "volcano")
        return
    if s.units[v].kind != "firefly":
        if defeatable(s, v, VOLCANO, "volcano"):
            defeat(c, [v], VOLCANO, "volcano")
        return
    found = _closest_targets(s, tile)
    if not found:
        return
    first = min(s.order.index(s.units[u].controller) for _, u in found)
    seat = s.order[first]
    mine = [t for t, u in found if s.units[u].controller == seat]
    if len(mine) == 1:
        firefly_strike(c, v, mine[0])
    else:
        c.mode("firefly", [seat, v, *[c.lab(t) for t in mine]])


def firefly_strike(c: RiteEmitter, ff: int, tile: int) -> None:
    """The Firefly moves onto its target: both are defeated."""
    s = c.s
    target = s.occ[tile]
    c.emit("UnitMoved", {"uid": ff, "path": [c.lab(s.units[ff].tiles[0]), c.lab(tile)], "onto": target})
    # The Firefly shares the target's tile for the instant of the strike; both go at once.
    defeat(c, [target, ff], VOLCANO, "firefly")


def _earth_side(s: State, e: int) -> int | None:
    """The tile an Earth Elemental acts on this roll, when it does anything at all."""
    side = s.geo.step(e, s.die - 1 + s.tnum[e])
    if side is None or s.kinds[side] not in ACCESSIBLE_KINDS:
        return None
    if side in s.rocks:
        return side
    v = s.occ[side]
    if v >= 0:
        return side if defeatable(s, v, VOLCANO, "volcano") else None
    return side if len(s.rocks) < ROCKS else None


def earth_step(c: RiteEmitter) -> None:
    earth_next(c, [i for i, k in enumerate(c.s.kinds) if k == "earth"])


def earth_next(c: RiteEmitter, pending: list[int]) -> None:
    """Resolve the Earth Elementals; when two or more would act, the first player in turn order
    chooses which goes first (simultaneous effects, General Rules)."""
    live = [e for e in pending if _earth_side(c.s, e) is not None]
    if len(live) >= 2 and order_matters(c, live, earth_one):
        c.mode("order", [c.s.order[0], *[c.lab(e) for e in live]])
        return
    for e in live:
        earth_one(c, e)


def earth_one(c: RiteEmitter, e: int) -> None:
    s = c.s
    g = s.geo
    side = _earth_side(s, e)
    if side is None:
        return
    if side in s.rocks:
        victims = [s.occ[j] for j in g.nbr[side] if s.occ[j] >= 0 and defeatable(s, s.occ[j], VOLCANO, "volcano")]
        if victims:
            defeat(c, victims, VOLCANO, "volcano")
        c.emit("RockRemoved", {"at": c.lab(side)})
        return
    v = s.occ[side]
    if v >= 0:
        defeat(c, [v], VOLCANO, "rock")
    c.emit("RockPlaced", {"at": c.lab(side)})
    if side in c.s.fire:
        c.emit("FireTokenRemoved", {"at": c.lab(side)})


def _fire_victims(s: State, e: int) -> list[int]:
    """What a Fire Elemental defeats this roll: the units in range Y (the round marker, already
    moved at step 3) on the line from its side X."""
    line = s.geo.ray(e, s.die - 1 + s.tnum[e], s.round)
    return [s.occ[j] for j in line if s.occ[j] >= 0 and defeatable(s, s.occ[j], VOLCANO, "volcano")]


def fire_step(c: RiteEmitter) -> None:
    fire_next(c, [i for i, k in enumerate(c.s.kinds) if k == "fire"])


def fire_next(c: RiteEmitter, pending: list[int]) -> None:
    """Resolve the Fire Elementals; when two or more would defeat something, the first player in
    turn order chooses which goes first (simultaneous effects, General Rules): an Undead reaction
    to one may place a Warrior in another's line."""
    live = [e for e in pending if _fire_victims(c.s, e)]
    if len(live) >= 2 and order_matters(c, live, fire_one):
        c.mode("order", [c.s.order[0], *[c.lab(e) for e in live]])
        return
    for e in live:
        fire_one(c, e)


def order_matters(c: RiteEmitter, live: list[int], one: Callable[[RiteEmitter, int], None]) -> bool:
    """Would the order of these simultaneous Elementals change anything? ("If there is no active
    player, the first player in turn order chooses in which order these game effects trigger.")
    From rules version 3 the choice is asked only when some two orders end in different
    positions (every order is played out on a copy); otherwise they act in reading order and the
    record says why no one was asked (`OrderFixed`, RULINGS.md "End of the Round")."""
    if c.s.rules < 3:
        return True
    first: State | None = None
    for order in itertools.permutations(live):
        trial = RiteEmitter(c.s, c.rng)
        for e in order:
            one(trial, e)
        # What the Undead may still react to is a set of tiles: the order it was listed in is not a result.
        s = trial.s
        end = revise(s, reacts=tuple(sorted(s.reacts)), rises=tuple(sorted(s.rises)))
        if first is None:
            first = end
        elif end != first:
            return True
    c.emit("OrderFixed", {"tiles": [c.lab(e) for e in live]})
    return False


def fire_one(c: RiteEmitter, e: int) -> None:
    victims = _fire_victims(c.s, e)
    if victims:
        defeat(c, victims, VOLCANO, "volcano")
