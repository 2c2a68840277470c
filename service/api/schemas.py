"""The OpenAPI document as the contract: a model for every body the API reads and answers, and
for each operation its request body, every status it can answer (with that answer's body) and
the credentials it takes.

The handlers read their bodies themselves (body.py) and answer bytes built by orjson
(responses.py), which is fast but leaves FastAPI's generated document blank. `document(app)`
fills it from the table below when the document is first asked for; it raises for an
operation the table does not name, so a new endpoint cannot ship undocumented. Nothing here
runs on a request.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import models_json_schema

# The platform's error codes, as docs/errors.md lists them (a test keeps the two equal). A game's
# rules refuse with codes of their own besides these (docs/errors.md, "The games' own codes").
ERROR_CODES: tuple[str, ...] = (
    "bad_json", "bad_token", "token_required", "sign_in_required", "metrics_token_required", "bad_session", "bad_magic_link", "bad_key",
    "cross_origin", "admin_only", "seat_required", "not_seated", "game_not_over", "unknown_game",
    "unknown_command_id", "unknown_table", "not_creator", "unknown_target", "unknown_feed", "unknown_session",
    "not_found", "method_not_allowed", "http_error", "game_over", "seat_claimed", "already_seated",
    "table_closed", "table_full", "seat_taken", "table_busy", "already_joined", "body_too_large",
    "path_too_long", "query_too_long", "bad_http_request", "bad_request", "bad_seat_token", "bad_command_id", "reserved_id", "bad_expect",
    "unknown_command", "bad_args", "bad_entropy", "bad_seats", "name_not_text", "name_empty", "name_too_long",
    "name_bad_character", "name_taken", "bad_options", "unknown_player", "ambiguous_player", "player_twice",
    "bad_expiry", "bad_seat", "bad_cursor", "number_out_of_range", "bad_seq", "bad_step", "bad_page", "bad_target",
    "bad_quiet_hours", "bad_email", "no_email", "already_confirmed", "already_yours", "not_an_email_target", "address_unconfirmed",
    "bad_confirmation_link", "mail_unavailable", "rate_limited", "internal_error", "store_unavailable",
    # Read your own writes and shared watchers (service/api/freshness.py, events/store/watchers.py)
    "too_many_streams", "streams_full", "bad_games", "projection_behind", "seq_not_reached",
    # Table talk and conditional moves (events/domain/platform/talk.py, events/domain/queued.py)
    "bad_message", "message_empty", "message_too_long", "unknown_message", "already_hidden", "bad_queue",
    # Play again (service/api/rematch.py, service/usecases/rematch.py)
    "game_active", "no_rematch", "rematch_unavailable",
    # Referees, forks and rules versions (service/usecases/matches.py, events/domain/forks.py, events/domain/match.py)
    "bad_referee", "inside_a_command", "nothing_to_play", "fork_would_reveal", "rules_version_unavailable",
    # Signing up, mailed links and claiming a referee's role (service/api/notifications.py, service/api/seats.py)
    "bad_signup_link", "bad_next", "referee_claimed", "referee_not_seat", "invitation_used", "no_invitation",
    # Clocks and vacations (events/domain/platform/clock.py, service/api/vacations.py)
    "vacation_on", "no_vacation_left", "no_vacation", "vacation_too_soon", "deadline_moved_on", "deadline_not_reached",
    "reminder_not_due", "vacation_unchanged", "clock_unchanged", "no_clock", "forfeit_unavailable",
    # Resign, agreements, takebacks, disputes (events/domain/platform/conduct.py, takeback.py, disputes.py)
    "resigned", "proposal_open", "no_proposal", "proposal_changed", "already_accepted", "takeback_off",
    "takeback_not_last", "takeback_after_draw", "takeback_after_reveal", "bad_note", "not_a_command", "already_undone",
    "dispute_open", "no_dispute", "dispute_changed", "referee_resolves", "not_refereed", "own_dispute",
    "own_move", "dispute_settled", "bad_reason", "referee_or_seat",
    "no_legal_command", "takeback_unavailable", "dispute_unavailable",
    # A command's answer, from the worker
    "seq_conflict", "not_your_turn", "wrong_prompt",
)


# --- errors -----------------------------------------------------------------------------------

class ErrorBody(BaseModel):
    code: str = Field(description="stable, for programs: one of the platform's codes (listed in this "
                      "schema's description and docs/errors.md) or, for a refused game command, the game's own")
    message: str = Field(description="for people: what was wrong and why; may change")


ErrorBody.model_config["json_schema_extra"] = {
    "description": "The platform's codes: " + ", ".join(ERROR_CODES) + ". docs/errors.md says when each is answered."}


class Error(BaseModel):
    """Every error answer: the error object, and, for a command's stored answer (rejected,
    conflict or failed), the command's result beside it; a refused join also carries the
    `entropy` that counts."""
    error: ErrorBody


# --- games ------------------------------------------------------------------------------------

class SeatIn(BaseModel):
    name: str | None = None
    entropy: str | None = Field(None, description="this seat's contribution to the game's randomness")
    player: str | None = Field(None, description="signed in: invite a player by id or name")
    open: bool | None = Field(None, description="signed in: leave the seat open (a forming table)")


class NewGame(BaseModel):
    model_config = ConfigDict(extra="forbid")
    game: str = Field(description="a game type (GET /v1/game-types)")
    seats: list[str | SeatIn] = Field(description="names, {name, entropy}, {player, name?, entropy?} or {open: true}")
    options: dict[str, Any] | None = Field(None, description="the game's options")
    expires_in: int | None = Field(None, description="with an open seat: seconds until the table closes")
    referee: str | RefereeIn | None = Field(None, description="a referee (not a seat) who reads everything mid-game: "
                                            "a name (a referee token is made, in this answer: the seats are "
                                            "told the creator was handed it), {name, email} (an invitation is "
                                            "mailed to them, no token answered) or {player: id or name}")


class RefereeIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = None
    email: str | None = Field(None, max_length=254, description="with name: the referee's address, where their "
                              "invitation is mailed (the answer holds no referee token)")
    player: str | None = Field(None, description="a player's id or name: they read the game signed in")


class RefereeMade(BaseModel):
    name: str
    token: str | None = Field(None, description="the referee's token (shown once): only for a referee named by a "
                              "name alone; none for a player or one invited by mail")
    player: str | None = Field(None, description="the referee player's id")
    appointed: Literal["mail", "player", "creator"] | None = Field(
        None, description="how the referee holds the role, as the game's first event tells every seat")
    mailed: bool | None = Field(None, description="true: the invitation was mailed to the referee")


class RefereeInvitationIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    code: str = Field(min_length=1, max_length=100, description="the code in the mailed invitation's link "
                      "(/games/<id>#referee=<code>)")


class ForkSeatIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    player: str = Field(description="invite a player by id or name: the seat is claimed for them")


class ForkIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    at: int | None = Field(None, ge=1, description="the seq to fork from (where a command's events end); "
                           "the head without it")
    seats: list[ForkSeatIn | None] | None = Field(None, description="one entry a seat: null (its token to the "
                                                  "forker) or {player}")


class ForkOrigin(BaseModel):
    game: str
    seq: int
    head: str = Field(description="the origin's hash at that seq")


class CreatedSeat(BaseModel):
    seat: int
    name: str | None
    token: str | None = Field(None, description="the seat's token (shown once); none for an invited or open seat")
    open: bool | None = None
    player: str | None = None


class GameCreated(BaseModel):
    id: str
    game: str
    seats: list[CreatedSeat]
    admin_token: str = Field(description="the game's admin token (abort); shown once")
    referee: RefereeMade | None = None


class ForkCreated(BaseModel):
    id: str
    game: str
    seats: list[CreatedSeat] = Field(description="every seat, each token to the forker")
    admin_token: str
    analysis: bool
    fork: ForkOrigin


class RematchSeat(BaseModel):
    seat: int
    name: str
    held: bool = Field(description="a player holds it: it is theirs in the rematch, and they were told")
    token: str | None = Field(None, description="a seat played by its token alone: its new token (shown once, "
                              "to the caller who made the rematch, to share)")
    link: str | None = Field(None, description="the seat's page with its new token")


class RematchMade(BaseModel):
    game: str = Field(description="the rematch's id")
    of: str = Field(description="the finished game")
    by: str = Field(description="the name of the seat that asked for it first")
    at: str
    created: bool = Field(description="true: this call made it (201); false: a seat asked before (200)")
    seat: int = Field(description="the caller's seat, the same in the rematch")
    seats: list[RematchSeat]
    admin_token: str | None = Field(None, description="the rematch's admin token, to the caller who made it")
    join: str | None = Field(None, description="(a later caller) the page of their seat in the rematch when "
                             "they hold it as a player; null for a token seat, whose link went to `by`")


class RematchOf(BaseModel):
    game: str
    of: str
    by: str
    at: str
    ready: bool = Field(description="the rematch is set up (false for a moment after it was asked for)")


class SeatName(BaseModel):
    seat: int
    name: str | None


class PromptBrief(BaseModel):
    seats: list[int]
    kind: str
    text: str | None = Field(None, description=(
        "what the game asks, in its own words as anyone may read them: "
        "'bob (Goblins): take an action, use a power or pass (round 2).' "
        "(absent from a summary projected before it was added)"))


class Summary(BaseModel):
    id: str
    game: str | None
    headline: str | None = Field(None, description='the game as players call it: "Rite: ann vs bob, round 5"')
    status: str = Field(description="active, over or aborted")
    seats: list[SeatName]
    prompt: PromptBrief | None
    seq: int
    outcome: dict[str, Any] | None
    created: str
    updated: str
    rules_version: int = Field(1, description="the rules version of its game the game is played under")
    refereed: bool = Field(False, description="whether a referee (not a seat) may read everything mid-game")
    referee: dict[str, Any] | None = Field(None, description="the referee: {name, appointed?}; null when "
                                           "unrefereed. appointed: 'mail' (invited by mail, holds the only "
                                           "referee link), 'player' (a player, signed in) or 'creator' (the "
                                           "creator was handed the referee token); absent in older games")
    analysis: bool = Field(False, description="an analysis game, forked from another")
    fork: dict[str, Any] | None = Field(None, description="for an analysis game: {game, seq, head} of its origin")
    imported: dict[str, Any] | None = Field(None, description=(
        "a record loaded by `boardlog import` from another deployment, for replay (no seat plays it "
        "here): {at (ISO 8601, UTC), verdict (verified or unverifiable), key (the trailer's key id), "
        "countersigned_by (this deployment's key id, which countersigned the import)}; "
        "null for a game made here"))
    clock: dict[str, Any] | None = Field(None, description=(
        "the game's clock, null without one: per_move, bank, increment, reminder (seconds), on_timeout, "
        "deadlines {seat: ISO time} of the running clocks, left_ms {seat: ms} of stopped ones, banks_ms, "
        "vacation (seats away), paused, stopped_by (timeout, dispute or empty), timed_out"))
    conduct: dict[str, Any] | None = Field(None, description=(
        "resign, agreements, takebacks and disputes: resigned (seats), proposal (the open one: kind draw, "
        "abandon or takeback, by, seq, accepted, waiting, to_seq) or null, undone [{first, last, by_seq}] "
        "(the seqs a TakenBack undid: replay strikes them through), disputes [{seq, by, on, note, verdict, "
        "votes, of (the disputed command's seat)}], takeback (whether the game allows takebacks)"))


class Lobby(BaseModel):
    games: list[Summary]
    types: list[str]
    next: str | None = Field(description="the cursor of the next page, null on the last")


class GameTypes(BaseModel):
    types: list[dict[str, Any]]


class Health(BaseModel):
    ok: bool
    namespace: str


# --- commands ---------------------------------------------------------------------------------

class CommandIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$", description="the command's id (a uuid): "
                    "sending it again answers the first one; it applies at most once")
    type: str | None = Field(None, description=(
        "a command type of the game (GET .../legal); with `args`. Or one of the platform's: "
        "boardlog.resign {}, boardlog.propose {kind: draw|abandon}, boardlog.accept {proposal?}, "
        "boardlog.refuse {proposal?}, boardlog.takeback {}, boardlog.dispute {seq, note}, "
        "boardlog.resolve {verdict: upheld|voided, reason, dispute?} (a seat, or a refereed game's referee, "
        "whose reason is required), "
        "boardlog.post {text}, boardlog.abort {reason?} (the admin), ..."))
    args: dict[str, Any] | None = None
    text: str | None = Field(None, description="the command in the game's notation, instead of type and args")
    expect: int | None = Field(None, ge=0, description="refuse (409 seq_conflict) unless the game is at this seq")
    comment: str | None = Field(None, min_length=1, max_length=2000, description="a seat's message sent with the "
                                "command: posted as its boardlog.MessagePosted right after the command's events")


class Queued(BaseModel):
    id: str
    status: Literal["queued"]


class Receipt(BaseModel):
    """Proof that the game stood at `seq` with head hash `head`: Ed25519 over
    "boardlog/receipt/v1\\n" + the canonical JSON of the other fields, by key `key` (/v1/keys)."""
    game: str
    seq: int
    head: str
    at: str
    key: str
    sig: str


class CommandResult(BaseModel):
    """A command's answer: accepted with the seqs of its events, or rejected, conflict or failed
    with the standard `error` object (and the game's seq then)."""
    id: str
    status: Literal["accepted", "rejected", "conflict", "failed"]
    seat: int | None = None
    http: int
    seq: int | list[int] = Field(description="accepted: [first, last] seq of its events (read the board with ?min_seq=last to see it); "
                                  "otherwise the game's seq")
    code: str | None = None
    message: str | None = None
    error: ErrorBody | None = None
    receipt: Receipt | None = Field(None, description="accepted: the signed receipt of the seq it reached")


class EntropyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    entropy: str = Field(min_length=1, max_length=256)


# --- reading a game ---------------------------------------------------------------------------

class View(BaseModel):
    """The board as one viewer may see it; `board` is the game's own (its view)."""
    game: str
    headline: str | None = Field(None, description='the game as players call it: "Rite: ann vs bob, round 5" '
                                 "(the game's name, the seats' names, its own word for the turn unit)")
    names: list[str] | None = Field(None, description="the seats' display names, by seat")
    seq: int
    seat: int | None
    status: str
    prompt: dict[str, Any] | None
    prompt_text: str | None
    outcome: dict[str, Any] | None
    board: dict[str, Any]
    referee: bool | None = Field(None, description="true for the game's referee, whose view adds seat_boards")
    seat_boards: list[dict[str, Any]] | None = Field(None, description="the referee's: each seat's board as "
                                                     "that seat sees it, by seat")


class ChainedCommand(BaseModel):
    type: str
    args: dict[str, Any]
    text: str = Field(description="the command in the game's notation")
    then: list[ChainedCommand] = Field(description="what the same seat may send right after it")


class LegalCommand(BaseModel):
    type: str
    args: dict[str, Any]
    text: str = Field(description="the command in the game's notation")
    sentence: str = Field(description="what it does, in words")
    then: list[ChainedCommand] | None = Field(
        None, description="for a command a page may chain (a Factions step): the legal commands of the same "
        "kind the seat has right after it, as deep as the chain goes (rules/chains.py); absent otherwise")


class Legal(BaseModel):
    seq: int
    commands: list[LegalCommand]


class EventOut(BaseModel):
    game: str
    seq: int
    type: str
    data: dict[str, Any]
    seat: int | None
    command: str | None
    at: str
    hash: str


class EventsPage(BaseModel):
    events: list[EventOut]
    next: int | None = Field(description="the `from` of the next page, null at the end")


class MovesPage(BaseModel):
    entries: list[dict[str, Any]]
    older: int | None
    seq: int


class DisputeView(BaseModel):
    dispute: int = Field(description="the open dispute's seq (its DisputeOpened's), what a ruling may name")
    on: int = Field(description="the seq of the disputed command's CommandAccepted")
    move: int | None = Field(description="the disputed move's number in the move list")
    by: str | None = Field(description="the name of the seat that opened it")
    note: str
    text: str = Field(description="the disputed move in the viewer's move list's words")
    before_seq: int = Field(description="the replay's seq just before the disputed move")
    after_seq: int = Field(description="the last seq of the disputed command's events")
    redraws: list[str] = Field(description="which draws a void would undo, one sentence each ([] when none)")
    opened_seq: int


class ReplayStep(BaseModel):
    step: int
    steps: int
    seq: int
    entry: dict[str, Any]
    view: dict[str, Any]
    changes: dict[str, Any]
    draws: dict[str, Any]
    viewer: dict[str, Any]


class AuditReport(BaseModel):
    """The audit of the record as this service exports it, with its own keys as the trusted ones."""
    ok: bool = Field(description="true only for the verdict verified")
    verdict: Literal["verified", "unverifiable", "failed"]
    summary: str = Field(description="exactly what was checked, or where and why it failed")
    game: str | None
    events: int
    seq: int | None = Field(description="failed: the first seq that does not hold")
    reason: str | None
    checked: list[str]
    status: str | None = Field(None, description="as the events say: active, over or aborted")
    key: str | None = Field(None, description="the id of the key that signed the trailer (an imported "
                            "record's: its origin's, kept as it came)")
    complete: bool = Field(False, description="a finished game whose every draw was re-derived")
    countersigned_by: list[str] = Field([], description="an imported record's: the ids of the keys of the "
                                        "deployments that imported it and countersigned what they checked")
    receipts: int = 0
    draws: int | None = Field(None, description="a game in progress: the draws made so far, re-derived "
                              "once the seed is revealed")


class PublicKeyOut(BaseModel):
    id: str
    algorithm: Literal["Ed25519"]
    public_key: str = Field(description="the raw 32-byte public key, hex")
    created: str | None
    current: bool


class Keys(BaseModel):
    """The keys that sign records' trailers and receipts; retired ones stay listed."""
    current: str
    keys: list[PublicKeyOut]


# --- players and seats ------------------------------------------------------------------------

class NewPlayer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    email: str | None = None


class PlayerCreated(BaseModel):
    id: str
    name: str
    key: str = Field(description="the player key (shown once)")
    signin_url: str
    confirmation_mailed: bool | None = Field(None, description=(
        "with an email: whether its confirmation link was mailed (the address is sent nothing, sign-in "
        "links included, until the link is used)"))


class PlayerOut(BaseModel):
    id: str
    name: str
    created: str | float


class SignIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    key: str = Field(min_length=1)


class SignedIn(BaseModel):
    session: str
    player: PlayerOut


class Me(PlayerOut):
    email: str | None
    email_confirmed: bool = Field(description="whether the email's mailed link was used (false with no email)")
    email_pending: str | None = Field(description="a new address asked for (PUT /v1/me/email) while `email` is "
                                      "confirmed: it takes `email`'s place once its mailed link is used")
    session: str | None


class SessionOut(BaseModel):
    id: str
    created: str | float
    last_seen: str | float | None
    user_agent: str
    current: bool


class Sessions(BaseModel):
    sessions: list[SessionOut]


class ClaimIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    token: str = Field(min_length=1, description="the seat's token, from its link")


class Claimed(BaseModel):
    game: str
    role: Literal["seat", "referee"] = Field(description="what the token held: a seat, or the referee's role")
    seat: int | None = Field(description="the seat claimed; null for the referee's role")
    claimed: bool = Field(description="false: the player already held this seat (or role)")


class InvitationIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    token: str = Field(min_length=1, description="the seat's token (the creator's, from the create answer)")
    email: str = Field(max_length=254, description="the invited player's address: the seat's link is mailed there")


class Invited(BaseModel):
    game: str
    seat: int
    mailed: bool


class SignedUp(BaseModel):
    session: str
    player: PlayerOut
    key: str = Field(description="the player key (shown once): the way in without mail")
    claimed: dict[str, Any] | None = Field(description="the seat the sign-up kept, claimed (`POST .../claim`'s answer, "
                                                       "or `{\"game\", \"error\"}` saying why not); null for none")


class NewKey(BaseModel):
    key: str = Field(description="the player's new key (shown once): the old one signs nobody in any more")
    signin_url: str


class SignedOutEverywhere(NewKey):
    signed_out: int = Field(description="how many sessions ended")


class KeptSeatOut(BaseModel):
    game: str
    role: Literal["seat", "referee"]
    seat: int | None


class LinkPreviewed(BaseModel):
    kind: Literal["key", "magic", "signup"]
    name: str = Field(description="the player the secret signs in as (a sign-up link's: the one it makes)")
    keeps: KeptSeatOut | None = Field(description="the seat (or referee's role) a mailed link keeps as it is used")


class SeatHeld(BaseModel):
    game: str
    role: str = Field("seat", description="'seat', or 'referee' for the player the game names as its referee")
    seat: int | None = Field(description="the seat held; null for the referee")


class DisputeWaiting(BaseModel):
    seq: int | None
    on: int | None
    by: str | None
    note: str | None


class GameRow(BaseModel):
    id: str
    game: str | None
    seat: int | None = Field(description="the player's seat; null in a game they referee")
    role: str = Field("seat", description="'seat', or 'referee' in a game that names the player its referee")
    name: str | None
    opponents: list[str | None]
    turn: list[str | None]
    your_turn: bool
    asked: str | None = Field(None, description=(
        "what the game asks of the seats in `turn`, in its words: 'take an action, use a power or pass (round 2)'"))
    dispute: DisputeWaiting | None = Field(None, description="the referee's: the open dispute waiting on their ruling")
    waiting_on_you: bool = Field(False, description="your turn, or a dispute waiting on you as the referee")
    since: str
    status: str
    deadline: str | None = Field(None, description="the seat's running deadline (ISO 8601, UTC); null without one")
    left_ms: int | None = Field(None, description="the seat's time left while its clock is stopped")
    away: bool = Field(False, description="the seat is on vacation")
    analysis: bool = Field(False, description="an analysis game (a fork)")
    refereed: bool = Field(False, description="the game names a referee")


class MyGames(BaseModel):
    games: list[GameRow]
    waiting: int


# --- notification targets ---------------------------------------------------------------------

class Failing(BaseModel):
    error: str
    at: str | float
    gave_up: bool


class TargetShown(BaseModel):
    """A target as its player's page lists it: never its secret or tokens."""
    id: str
    kind: str = Field(description="email, apprise, webhook or atom")
    address: str | None
    events: list[str]
    digest: bool
    created: str | float
    confirmed: bool = Field(description="false for an email target until the link mailed to its address is used: "
                                        "it is sent nothing until then")
    failing: Failing | None = Field(description="its last failure, while it fails")


class Quiet(BaseModel):
    tz: str
    start: str
    end: str


class VacationOut(BaseModel):
    on: bool
    since: str | None = Field(description="when the running vacation began (ISO 8601, UTC); null when none runs")
    until: str | None = Field(description="when it ends by itself, its days spent; null when none runs")
    allowance_days: int = Field(description="vacation days a calendar year (BOARDLOG_VACATION_DAYS)")
    used_days: float = Field(description="days taken this year, the running vacation's so far included")
    used_seconds: float = Field(description="the same in seconds")
    left_days: float
    games: list[str] = Field(description="the games whose clocks the running (or last) vacation stopped")


class OwnEmail(BaseModel):
    address: str
    confirmed: bool = Field(description="whether its mailed link was used: sign-in links go only to a confirmed address")
    pending: str | None = Field(description="a new address waiting for its mailed link, which makes it this one")


# An address's shape as service/api/players.py's email_of reads it (white space around it is
# stripped); that it is all printable no pattern can say, and is refused with 422 bad_email.
EMAIL_PATTERN = r"^\s*[^@\s]+@[^@\s]+\s*$"


class EmailIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    email: str = Field(max_length=254, pattern=EMAIL_PATTERN, description="the new address")


class EmailChanged(BaseModel):
    email: str | None = Field(description="the player's address now (sign-in links go to it once confirmed)")
    email_confirmed: bool
    email_pending: str | None = Field(description="the new address, when the confirmed one holds until it is "
                                      "confirmed")
    confirmation_mailed: bool | None = Field(None, description="202: whether the new address's confirmation link "
                                             "left (if not, ask again: POST /v1/me/email/confirmation)")


class Targets(BaseModel):
    targets: list[TargetShown]
    dead_letters: Any = Field(description="the notices given up on")
    quiet: Quiet
    email: OwnEmail | None = Field(description="the player's own address, if any")


class TargetAdded(BaseModel):
    target: TargetShown
    secret: str | None = Field(None, description="a webhook's signing secret (shown once)")
    feed_url: str | None = Field(None, description="an Atom feed's URL, with its key (shown once)")
    confirmation_mailed: bool | None = Field(None, description=(
        "an email target of an address not confirmed yet: whether its confirmation link was mailed"))


class TargetChanged(BaseModel):
    target: TargetShown


class TestSent(BaseModel):
    sent: bool
    error: str | None = None


class MailSent(BaseModel):
    sent: str = Field(description="always the same words: whether a player has the address is not told")


class ConfirmationMailed(BaseModel):
    mailed: bool
    message: str


class Confirmed(BaseModel):
    address: str = Field(description="the address confirmed: notices (and, for the player's own, sign-in links) go to it")
    player: str | None = Field(description="the name of the player it was confirmed for")


# --- table talk and conditional moves ---------------------------------------------------------

class MessageIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=2000, description="plain text (shown escaped, never as HTML)")
    id: str | None = Field(None, pattern=r"^[A-Za-z0-9_-]{1,64}$", description="its command id (sending it "
                           "again answers the first one)")


class MessageOut(BaseModel):
    seq: int = Field(description="the seq of its MessagePosted event, the message's id")
    seat: int | None = Field(description="the seat that posted it; null for the referee's")
    referee: bool = Field(False, description="posted by the game's referee (no seat)")
    who: str | None
    text: str | None = Field(description="null once hidden (but for the admin)")
    at: str
    on: int | None = Field(description="the seq of the command it comments, when sent with one")
    hidden: str | None = Field(description="'hidden by the admin', or null")


class Messages(BaseModel):
    seq: int
    messages: list[MessageOut]
    muted: bool | None = Field(description="for a seat: whether it muted this game's chat; null for others")


class HideIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str | None = Field(None, max_length=200)


class MuteIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    muted: bool


class Muted(BaseModel):
    muted: bool


class QueuedEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    if_: str | None = Field(None, alias="if", min_length=1, max_length=200, description="the opponent command "
                            "it answers, in notation; absent or null: whatever came")
    then: str = Field(min_length=1, max_length=200, description="the seat's command, in notation")


class QueueIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    queue: list[QueuedEntry] = Field(max_length=20)


class SeatQueue(BaseModel):
    seat: int
    ver: int = Field(description="bumped by every change")
    queue: list[QueuedEntry]
    dropped: dict[str, Any] | None = Field(description="the last queue dropped, and why: {seq, reason, cause "
                                           "('no_fit', or 'takeback': a takeback undid the position it was set on "
                                           "or an answer played from it), last, by, entries, told (its seat's "
                                           "notice queued)}; null after a new queue is set")
    since: int = Field(0, description="the game's seq when it was set: it answers the prompts that reach the "
                       "seat after it")


MODELS: tuple[type[BaseModel], ...] = (
    Error, ErrorBody, NewGame, GameCreated, Summary, Lobby, GameTypes, Health, CommandIn, Queued, CommandResult,
    EntropyIn, View, Legal, EventsPage, MovesPage, DisputeView, ReplayStep, AuditReport, NewPlayer, PlayerCreated, SignIn, SignedIn, Me,
    Sessions, ClaimIn, Claimed, InvitationIn, Invited, SignedUp, SeatHeld, MyGames, Targets, TargetAdded, TargetChanged, TestSent, Quiet,
    MailSent, ConfirmationMailed, Confirmed, OwnEmail, EmailIn, EmailChanged, VacationOut,
    MessageIn, Messages, HideIn, MuteIn, Muted, QueueIn, SeatQueue,
    RefereeIn, RefereeMade, RefereeInvitationIn, ForkSeatIn, ForkIn, ForkOrigin, ForkCreated, RematchSeat, RematchMade, RematchOf,
    Keys, NewKey, SignedOutEverywhere, LinkPreviewed,
)

# --- credentials ------------------------------------------------------------------------------

SECURITY_SCHEMES: dict[str, Any] = {
    "seatToken": {"type": "http", "scheme": "bearer",
                  "description": "a game's seat token (or its admin token), from the answer that created it"},
    "playerKey": {"type": "http", "scheme": "bearer",
                  "description": "a player key (POST /v1/players) or a session's secret"},
    "session": {"type": "apiKey", "in": "cookie", "name": "boardlog_session",
                "description": "the session cookie POST /v1/sessions sets; a request that changes something "
                "must come from this site (Origin)"},
}
_Security = list[dict[str, list[str]]]
_GAME: _Security = [{"seatToken": []}, {"playerKey": []}, {"session": []}]  # a seat, or a player holding one
_GAME_OR_NONE = [{}, *_GAME]  # as above, or anyone (the public view)
_PLAYER: _Security = [{"playerKey": []}, {"session": []}]  # a signed-in player
_PLAYER_OR_NONE = [{}, *_PLAYER]
_NONE: _Security = []

_WHY = {
    202: "accepted for later", 204: "done, no body", 400: "the body is not a JSON object (bad_json)",
    401: "no credentials, or not valid here", 403: "the credentials may not do this",
    404: "no such game, command, seat, table or target", 409: "it conflicts with the game's or table's state",
    413: "the body is over 64 KiB (body_too_large)",
    414: "the path or the query is too long (path_too_long, query_too_long)",
    422: "a field or parameter is wrong; the code says which",
    429: "too many from this address this minute (rate_limited), with Retry-After",
    503: "the event store is out of reach (store_unavailable), with Retry-After",
    504: "the read model did not reach ?min_seq in its wait (projection_behind), with Retry-After",
}


@dataclass(frozen=True)
class Op:
    ok: dict[int, type[BaseModel] | str | None]   # a model, a media type (a body not JSON), or None (no body)
    errors: tuple[int, ...]
    security: list[dict[str, list[str]]]
    body: type[BaseModel] | None = None
    parameters: list[dict[str, Any]] = field(default_factory=list)
    pages: tuple[int, ...] = ()  # statuses answered as an HTML page, not the error object


INT64 = 2**63 - 1  # the edge refuses any integer query value past it (edge.py)
_E = (414, 422, 503)  # any operation: over-long paths and queries, an integer query past 64 bits, Redis away
_Q_EVENTS = [
    {"name": "from", "in": "query", "required": False, "description": "the first seq (from 1)",
     "schema": {"type": "integer", "default": 1}},
    {"name": "to", "in": "query", "required": False, "description": "the last seq, at most",
     "schema": {"type": "integer"}},
]

_Q_AT = {"name": "at", "in": "query", "required": False,
         "description": "the board after this seq (from 1; a replay, rate-limited); the current one without it",
         "schema": {"type": "integer", "minimum": 1, "maximum": INT64}}
_Q_MIN_SEQ = {"name": "min_seq", "in": "query", "required": False,
              "description": "read your own writes: wait (up to 2 s) until the read model has reached this seq "
              "(the last seq of your accepted command); 422 seq_not_reached if the game has not reached it "
              "by then, 504 projection_behind if its board is late",
              "schema": {"type": "integer", "minimum": 1, "maximum": INT64}}
_Q_WAIT = {"name": "wait", "in": "query", "required": False,
           "description": "1: wait (a few seconds) for the result; 0: answer 202 queued at once",
           "schema": {"type": "integer", "enum": [0, 1], "default": 0}}

# A lobby page's `next` (projections.lobby.Cursor: last activity, then game id), or empty for the first.
LOBBY_CURSOR = re.compile(r"-?[0-9]{1,19}:[A-Za-z0-9_-]{1,64}")
_Q_CURSOR = {"name": "cursor", "in": "query", "required": False,
             "description": "the `next` of the previous page; empty or absent: the first page",
             "schema": {"type": "string", "pattern": f"^({LOBBY_CURSOR.pattern})?$"}}

OPERATIONS: dict[tuple[str, str], Op] = {
    ("GET", "/v1/health"): Op({200: Health}, (414, 422), _NONE),
    ("POST", "/v1/games"): Op({201: GameCreated}, (400, 401, 403, 404, 413, 429, *_E), _PLAYER_OR_NONE, NewGame),
    ("GET", "/v1/games"): Op({200: Lobby}, _E, _NONE, parameters=[_Q_CURSOR]),
    ("POST", "/v1/games/{gid}/forks"): Op({201: ForkCreated}, (400, 401, 403, 404, 409, 413, 429, *_E),
                                          _GAME_OR_NONE, ForkIn),
    ("POST", "/v1/games/{gid}/rematch"): Op({200: RematchMade, 201: RematchMade}, (401, 403, 404, 409, *_E), _GAME),
    ("GET", "/v1/games/{gid}/rematch"): Op({200: RematchOf}, (404, *_E), _NONE),
    ("GET", "/v1/game-types"): Op({200: GameTypes}, (414, 422), _NONE),
    ("GET", "/v1/games/{gid}"): Op({200: Summary}, (404, 504, *_E), _NONE, parameters=[_Q_MIN_SEQ]),
    ("POST", "/v1/games/{gid}/commands"): Op({200: CommandResult, 202: Queued},
                                             (400, 401, 403, 404, 409, 413, 429, *_E), _GAME, CommandIn,
                                             [_Q_WAIT]),
    ("GET", "/v1/games/{gid}/commands/{cid}"): Op({200: CommandResult, 202: Queued}, (401, 403, 404, 409, *_E),
                                                  _GAME),
    ("POST", "/v1/games/{gid}/join"): Op({200: CommandResult}, (400, 401, 403, 404, 409, 413, *_E), _GAME, EntropyIn),
    ("POST", "/v1/games/{gid}/abort"): Op({200: CommandResult, 202: Queued}, (401, 403, 404, 409, *_E),
                                          [{"seatToken": []}]),
    ("GET", "/v1/games/{gid}/view"): Op({200: View}, (401, 403, 404, 429, 504, *_E), _GAME_OR_NONE,
                                        parameters=[_Q_AT, _Q_MIN_SEQ]),
    ("GET", "/v1/games/{gid}/view.txt"): Op({200: "text/plain"}, (401, 403, 404, 429, 504, *_E), _GAME_OR_NONE,
                                            parameters=[_Q_AT, _Q_MIN_SEQ]),
    ("GET", "/v1/games/{gid}/legal"): Op({200: Legal}, (401, 403, 404, *_E), _GAME),
    ("GET", "/v1/games/{gid}/events"): Op({200: EventsPage}, (401, 403, 404, *_E), _GAME_OR_NONE,
                                          parameters=_Q_EVENTS),
    ("GET", "/v1/games/{gid}/export"): Op({200: "application/x-ndjson"}, (401, 403, 404, 429, *_E), _GAME_OR_NONE),
    ("GET", "/v1/games/{gid}/export.txt"): Op({200: "text/plain"}, (401, 403, 404, 429, *_E), _GAME_OR_NONE),
    ("GET", "/v1/games/{gid}/audit"): Op({200: AuditReport}, (401, 403, 404, 429, *_E), _GAME_OR_NONE),
    ("GET", "/v1/games/{gid}/stream"): Op({200: "text/event-stream"}, (404, 429, *_E), _NONE),
    ("GET", "/v1/streams/games"): Op({200: "text/event-stream"}, (404, 429, *_E), _NONE),
    ("GET", "/v1/games/{gid}/moves"): Op({200: MovesPage}, (401, 403, 404, *_E), _GAME_OR_NONE),
    ("GET", "/v1/games/{gid}/dispute"): Op({200: DisputeView}, (401, 403, 404, *_E), _GAME),
    ("GET", "/v1/games/{gid}/replay"): Op({200: ReplayStep}, (401, 403, 404, 429, *_E), _GAME_OR_NONE),
    ("POST", "/v1/games/{gid}/messages"): Op({200: CommandResult, 202: Queued}, (400, 401, 403, 404, 409, 413, 429, *_E),
                                             _GAME, MessageIn),
    ("GET", "/v1/games/{gid}/messages"): Op({200: Messages}, (401, 403, 404, *_E), _GAME_OR_NONE),
    ("POST", "/v1/games/{gid}/messages/{seq}/hide"): Op({200: CommandResult, 202: Queued},
                                                       (400, 401, 403, 404, 409, 413, *_E), _GAME, HideIn),
    ("PUT", "/v1/games/{gid}/messages/mute"): Op({200: Muted}, (400, 401, 403, 404, 413, *_E), _GAME, MuteIn),
    ("GET", "/v1/games/{gid}/conditional"): Op({200: SeatQueue}, (401, 403, 404, *_E), _GAME),
    ("PUT", "/v1/games/{gid}/conditional"): Op({200: SeatQueue}, (400, 401, 403, 404, 409, 413, *_E), _GAME,
                                               QueueIn),
    ("DELETE", "/v1/games/{gid}/conditional"): Op({204: None}, (401, 403, 404, *_E), _GAME),
    ("POST", "/v1/players"): Op({201: PlayerCreated}, (400, 413, 429, *_E), _NONE, NewPlayer),
    ("POST", "/v1/sessions"): Op({201: SignedIn}, (400, 401, 403, 413, 429, *_E), _NONE, SignIn),
    ("GET", "/v1/me"): Op({200: Me}, (401, *_E), _PLAYER),
    ("PUT", "/v1/me/email"): Op({200: EmailChanged, 202: EmailChanged}, (400, 401, 403, 409, 413, 429, *_E), _PLAYER,
                                EmailIn),
    ("DELETE", "/v1/me/email"): Op({204: None}, (401, 403, 404, *_E), _PLAYER),
    ("GET", "/v1/me/sessions"): Op({200: Sessions}, (401, *_E), _PLAYER),
    ("DELETE", "/v1/me/sessions"): Op({200: SignedOutEverywhere}, (401, 403, *_E), _PLAYER),
    ("POST", "/v1/me/key"): Op({200: NewKey}, (401, 403, *_E), _PLAYER),
    ("DELETE", "/v1/me/sessions/{sid}"): Op({204: None}, (401, 403, 404, *_E), _PLAYER),
    ("POST", "/v1/games/{gid}/claim"): Op({200: Claimed}, (400, 401, 403, 404, 409, 413, *_E), _PLAYER, ClaimIn),
    ("POST", "/v1/games/{gid}/referee-invitation"): Op({200: Claimed}, (400, 401, 403, 404, 409, 413, *_E), _PLAYER,
                                                       RefereeInvitationIn),
    ("GET", "/v1/games/{gid}/seat"): Op({200: SeatHeld}, (401, 404, *_E), _PLAYER),
    ("GET", "/v1/me/games"): Op({200: MyGames}, (401, *_E), _PLAYER),
    ("GET", "/v1/me/stream"): Op({200: "text/event-stream"}, (401, 429, *_E), _PLAYER),
    ("GET", "/v1/tables"): Op({}, _E, _PLAYER_OR_NONE),
    ("GET", "/v1/tables/{gid}"): Op({}, (404, *_E), _PLAYER_OR_NONE),
    ("POST", "/v1/tables/{gid}/join"): Op({}, (401, 403, 404, 409, 413, *_E), _PLAYER),
    ("POST", "/v1/tables/{gid}/cancel"): Op({}, (401, 403, 404, 409, *_E), _PLAYER),
    ("GET", "/v1/me/targets"): Op({200: Targets}, (401, *_E), _PLAYER),
    ("POST", "/v1/me/targets"): Op({201: TargetAdded}, (401, 403, 413, 429, *_E), _PLAYER),
    ("PATCH", "/v1/me/targets/{tid}"): Op({200: TargetChanged}, (401, 403, 404, 413, *_E), _PLAYER),
    ("DELETE", "/v1/me/targets/{tid}"): Op({204: None}, (401, 403, 404, *_E), _PLAYER),
    ("POST", "/v1/me/targets/{tid}/test"): Op({200: TestSent}, (401, 403, 404, 409, *_E), _PLAYER),
    ("PUT", "/v1/me/quiet"): Op({200: Quiet}, (401, 403, 413, *_E), _PLAYER),
    ("GET", "/v1/me/vacation"): Op({200: VacationOut}, (401, *_E), _PLAYER),
    ("POST", "/v1/me/vacation"): Op({200: VacationOut}, (401, 403, 409, 413, *_E), _PLAYER),
    ("DELETE", "/v1/me/vacation"): Op({200: VacationOut}, (401, 403, 409, *_E), _PLAYER),
    ("GET", "/me/feed.atom"): Op({200: "application/atom+xml"}, (404, *_E), _NONE),
    ("GET", "/unsubscribe/{token}"): Op({200: "text/html"}, (404, *_E), _NONE, pages=(404,)),
    ("POST", "/unsubscribe/{token}"): Op({200: "text/html"}, (404, *_E), _NONE, pages=(404,)),
    ("POST", "/v1/signin-mail"): Op({202: MailSent}, (413, 429, *_E), _NONE),
    ("POST", "/v1/me/email/confirmation"): Op({202: ConfirmationMailed}, (401, 403, 404, 409, 429, *_E), _PLAYER),
    ("POST", "/v1/me/targets/{tid}/confirmation"): Op({202: ConfirmationMailed}, (401, 403, 404, 409, 429, *_E),
                                                       _PLAYER),
    ("POST", "/v1/confirmations"): Op({200: Confirmed}, (403, 404, 413, 429, *_E), _NONE),
    ("POST", "/v1/sessions/magic"): Op({201: SignedIn}, (401, 403, 413, 429, *_E), _NONE),
    ("POST", "/v1/sessions/preview"): Op({200: LinkPreviewed}, (401, 413, 429, *_E), _NONE),
    ("POST", "/v1/signup"): Op({202: MailSent}, (403, 413, 429, *_E), _NONE),
    ("POST", "/v1/signup/complete"): Op({201: SignedUp}, (401, 403, 413, 429, *_E), _NONE),
    ("POST", "/v1/games/{gid}/invitations"): Op({202: Invited}, (400, 401, 403, 404, 413, 429, *_E), _PLAYER,
                                               InvitationIn),
    ("GET", "/metrics"): Op({200: "text/plain"}, (401, 414, 422), _NONE),
    ("GET", "/v1/keys"): Op({200: Keys}, (414, 422, 500), _NONE),
}


def _ref(model: type[BaseModel]) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{model.__name__}"}


def _ok(status: int, what: type[BaseModel] | str | None, had: dict[str, Any] | None) -> dict[str, Any]:
    described = (had or {}).get("description") or _WHY.get(status, "done")
    if what is None:
        return {"description": described}
    if isinstance(what, str):
        return {"description": described, "content": {what: {"schema": {"type": "string"}}}}
    return {"description": described, "content": {"application/json": {"schema": _ref(what)}}}


def _error(status: int) -> dict[str, Any]:
    return {"description": _WHY.get(status, "refused"), "content": {"application/json": {"schema": _ref(Error)}}}


def build(app: FastAPI) -> dict[str, Any]:
    """The app's OpenAPI document, every operation described from OPERATIONS."""
    doc = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes,
                      webhooks=app.webhooks.routes)
    _, defs = models_json_schema([(m, "validation") for m in MODELS],
                                 ref_template="#/components/schemas/{model}")
    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    ours = defs.get("$defs", {})
    clash = sorted(n for n in ours if n in schemas and schemas[n] != ours[n])
    if clash:  # a handler's own model of the same name would be replaced by ours
        raise RuntimeError(f"service/api/schemas.py: models named as a handler's own: {', '.join(clash)}")
    schemas.update(ours)
    for name in ("HTTPValidationError", "ValidationError"):  # FastAPI's; our 422 is Error
        schemas.pop(name, None)
    doc["components"]["securitySchemes"] = SECURITY_SCHEMES
    missing = []
    for path, ops in doc["paths"].items():
        for method, operation in ops.items():
            op = OPERATIONS.get((method.upper(), path))
            if op is None:
                missing.append(f"{method.upper()} {path}")
                continue
            _describe(operation, op)
    if missing:
        raise RuntimeError(f"service/api/schemas.py OPERATIONS does not describe: {', '.join(missing)}")
    for ops in doc.get("webhooks", {}).values():
        for operation in ops.values():
            # FastAPI's validation answer, whose schema is removed above: a receiver's answer to a
            # notice is whatever it likes (anything but 2xx is retried).
            operation.get("responses", {}).pop("422", None)
    return doc


def _describe(operation: dict[str, Any], op: Op) -> None:
    had = operation.get("responses", {})
    responses: dict[str, Any] = {}
    for status, what in op.ok.items():
        responses[str(status)] = _ok(status, what, had.get(str(status)))
    if not op.ok:  # the handler's own response_model (FastAPI documented it)
        responses.update({s: r for s, r in had.items() if s.startswith("2")})
    for status in op.errors:
        responses[str(status)] = _ok(status, "text/html", None) if status in op.pages else _error(status)
    operation["responses"] = responses
    operation["security"] = op.security
    if op.body is not None:
        operation["requestBody"] = {"required": True,
                                    "content": {"application/json": {"schema": _ref(op.body)}}}
    if "requestBody" in operation and op.body is None:  # a model FastAPI reads: it refuses a bad body
        responses.setdefault("400", _error(400))
    if op.parameters:  # ours replace FastAPI's of the same name (the handler reads them itself)
        ours = {(p["name"], p["in"]) for p in op.parameters}
        operation["parameters"] = [p for p in operation.get("parameters", [])
                                   if (p["name"], p["in"]) not in ours] + op.parameters
    for p in operation.get("parameters", []):  # the edge's bound on every integer (edge.py)
        if p.get("schema", {}).get("type") == "integer":
            p["schema"].setdefault("minimum", -INT64)
            p["schema"].setdefault("maximum", INT64)


def document(app: FastAPI) -> None:
    """Make `app.openapi()` answer the described document (built once, on first asking)."""
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
