"""What the people of the journeys do through the API, and what reaches them: players with their
mail and webhook targets, a Rite game with its seats claimed, a move that rolls a die (found by
playing legal commands), disputes, and the notices each person was sent."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any

import httpx
from standardwebhooks import Webhook

from tests.conftest import wait_for
from tests.integration.helpers import bearer
from tests.support.receivers import MailBox, Web

COMMAND_ACCEPTED = "boardlog.CommandAccepted"


@dataclass
class Person:
    """A player with an account, a confirmed mail address and a webhook target."""

    name: str
    id: str
    key: str
    signin_url: str
    address: str
    hook: str  # the receiver's path
    secret: str

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "id": self.id, "key": self.key, "signin_url": self.signin_url}


def person(c: httpx.Client, mailbox: MailBox, hooks: Web, name: str) -> Person:
    """A new player told by mail (the address confirmed by the link mailed to it) and webhook."""
    r = c.post("/v1/players", json={"name": name})
    assert r.status_code == 201, r.text
    made = r.json()
    address = f"{name}-{made['id']}@example.org"
    r = c.post("/v1/me/targets", json={"kind": "email", "address": address}, headers=bearer(made["key"]))
    assert r.status_code == 201, r.text
    if not r.json()["target"]["confirmed"]:
        wait_for(lambda: mailbox.confirmations(address), timeout=15)
        confirmed = c.post("/v1/confirmations", json={"token": mailbox.confirmations(address)[-1]})
        assert confirmed.status_code == 200, confirmed.text
    path = f"/hook/{made['id']}"
    r = c.post("/v1/me/targets", json={"kind": "webhook", "address": hooks.url(path)}, headers=bearer(made["key"]))
    assert r.status_code == 201, r.text
    return Person(name, made["id"], made["key"], made["signin_url"], address, path, r.json()["secret"])


@dataclass
class Game:
    id: str
    tokens: list[str]  # by seat
    admin: str
    seats: dict[str, int] = field(default_factory=dict)  # a seat's name -> its number
    referee_token: str | None = None

    def token(self, name: str) -> str:
        return self.tokens[self.seats[name]]


def rite(c: httpx.Client, seats: list[Person], referee: Person | str | None = None) -> Game:
    """A two-seat Rite game whose seats the `seats` players claim, in order; refereed by a player
    (who reads it signed in) or by a name (who gets a referee token)."""
    body: dict[str, Any] = {"game": "rite", "seats": [p.name for p in seats]}
    if isinstance(referee, Person):
        body["referee"] = {"player": referee.id}  # by id: names repeat across journeys
    elif referee is not None:
        body["referee"] = referee
    r = c.post("/v1/games", json=body)
    assert r.status_code == 201, r.text
    made = r.json()
    game = Game(made["id"], [s["token"] for s in made["seats"]], made["admin_token"],
                {p.name: i for i, p in enumerate(seats)}, (made.get("referee") or {}).get("token"))
    for p, token in zip(seats, game.tokens, strict=True):
        r = c.post(f"/v1/games/{game.id}/claim", json={"token": token}, headers=bearer(p.key))
        assert r.status_code == 200, r.text
    wait_for(lambda: (c.get(f"/v1/games/{game.id}").json() or {}).get("prompt"), timeout=15)
    return game


def send(c: httpx.Client, gid: str, token: str | None, type_: str, args: dict[str, Any] | None = None) -> httpx.Response:
    """A command, waited for; `token` None sends it with no credentials (a spectator)."""
    headers = bearer(token) if token else {}
    return c.post(f"/v1/games/{gid}/commands?wait=1", headers=headers,
                  json={"id": str(uuid.uuid4()), "type": type_, "args": args or {}})


def accepted(r: httpx.Response) -> tuple[int, int]:
    """The first and last seq an accepted command wrote."""
    assert r.status_code == 200 and r.json()["status"] == "accepted", r.text
    first, last = r.json()["seq"]
    return int(first), int(last)


def code_of(r: httpx.Response) -> str:
    """The code of a refusal, whether the API refused it (`error.code`) or the rules did (`code`)."""
    body = r.json()
    return str(body.get("code") or (body.get("error") or {}).get("code"))


def events(c: httpx.Client, gid: str, token: str | None = None, since: int = 1) -> list[dict[str, Any]]:
    r = c.get(f"/v1/games/{gid}/events", params={"from": since}, headers=bearer(token) if token else {})
    assert r.status_code == 200, r.text
    out: list[dict[str, Any]] = r.json()["events"]
    return out


def head(c: httpx.Client, gid: str) -> int:
    return int(c.get(f"/v1/games/{gid}").json()["seq"])


@dataclass(frozen=True)
class Roll:
    """A command that drew: its CommandAccepted's seq, its last seq, the draw indexes and the die."""

    on: int
    last: int
    draws: tuple[int, int]
    die: int


def _pass_or(commands: list[dict[str, Any]], passing: bool) -> dict[str, Any]:
    passes = [m for m in commands if m["type"].endswith(".pass")]
    others = [m for m in commands if not m["type"].endswith(".pass")]
    if passing and passes:
        return passes[0]
    return (others or passes)[0]


def roll_by(c: httpx.Client, game: Game, name: str, limit: int = 30) -> Roll:
    """Play legal commands until `name`'s own command rolls the volcano die, and return it.

    A Rite round ends, and the die is rolled, on the pass that leaves nobody to play: the other
    seat passes whenever it may, and `name` passes only once the other has passed (before that it
    plays another legal command), so the roll falls on `name`'s pass."""
    mover = game.seats[name]
    other_passed = False
    seen = head(c, game.id)
    for _ in range(limit):
        prompt = c.get(f"/v1/games/{game.id}", params={"min_seq": seen}).json()["prompt"]
        seat = prompt["seats"][0]
        legal = c.get(f"/v1/games/{game.id}/legal", params={"min_seq": seen},
                      headers=bearer(game.tokens[seat])).json()["commands"]
        m = _pass_or(legal, passing=seat != mover or other_passed)
        first, last = accepted(send(c, game.id, game.tokens[seat], m["type"], m["args"]))
        seen = last
        mine = events(c, game.id, game.tokens[seat], since=first)[: last - first + 1]
        draws = mine[0]["data"]["rng"]
        rolled = [e["data"]["die"] for e in mine if e["type"] == "rite.VolcanoRolled"]
        if rolled:
            other_passed = False
            if seat == mover:
                return Roll(first, last, (draws[0], draws[1]), rolled[0])
        elif seat != mover and m["type"].endswith(".pass"):
            other_passed = True
    raise AssertionError(f"{name} rolled no die in {limit} commands")


def move_entry(c: httpx.Client, gid: str, on: int, token: str | None = None) -> dict[str, Any]:
    """The move list's entry of the command whose CommandAccepted is at `on`."""
    entries = c.get(f"/v1/games/{gid}/moves", headers=bearer(token) if token else {}).json()["entries"]
    return next(e for e in entries if e["seq_from"] == on)


def move_texts(c: httpx.Client, gid: str, token: str | None = None) -> list[str]:
    """Every sentence the move list shows: each entry's, and its events' beneath it."""
    entries = c.get(f"/v1/games/{gid}/moves", headers=bearer(token) if token else {}).json()["entries"]
    return [str(t) for e in entries for t in (e["text"], *(x["text"] for x in e.get("events", [])))]


# --- what reached whom --------------------------------------------------------------------------


def hooked(hooks: Web, p: Person, gid: str) -> list[dict[str, Any]]:
    """The webhook notices `p` got of game `gid`, each verified against its target's secret."""
    out = []
    for h in hooks.at(p.hook):
        body: dict[str, Any] = Webhook(p.secret).verify(h.body, {k.lower(): v for k, v in h.headers.items()})
        if body.get("game") == gid:
            out.append(body)
    return out


def mailed(mailbox: MailBox, p: Person, gid: str) -> list[EmailMessage]:
    """The notice mails `p` got of game `gid` (a notice mail names its game in X-Boardlog-Notice)."""
    return [m for m in mailbox.to(p.address) if str(m["X-Boardlog-Notice"] or "").startswith(f"{gid}:")]


def notice_seq(m: EmailMessage) -> int:
    return int(str(m["X-Boardlog-Notice"]).split(":")[1])


def plain(m: EmailMessage) -> str:
    body = m.get_body(("plain",))
    assert body is not None, m
    return str(body.get_content())


def words_of(notice: dict[str, Any]) -> str:
    """Everything a webhook notice says in words."""
    return " ".join(str(notice.get(k) or "") for k in ("asked", "last_move", "text", "note", "reason"))


def link_to(text: str, base: str, gid: str) -> str:
    """The first link in `text` to game `gid`'s pages on `base`."""
    found = re.search(re.escape(base) + r"/games/" + re.escape(gid) + r"[^\s<>\"]*", text)
    assert found, text
    return found.group(0)
