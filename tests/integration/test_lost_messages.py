"""A command whose dramatiq message is lost (a broker Redis restarted without its data) is
queued again by the projector's sweep and answered, not left queued for ever."""

from __future__ import annotations

import uuid
from pathlib import Path

from events.store import EventStore
from tests.conftest import child_env, running_stack, wait_for
from tests.integration.helpers import command, new_race


def test_a_command_whose_message_was_lost_is_queued_again_and_answered(
    redis_url: str, namespace: str, store: EventStore, tmp_path: Path
) -> None:
    env = child_env(redis_url, namespace, BOARDLOG_REQUEUE_AFTER_SECONDS="1")
    with running_stack(env, tmp_path) as stack, stack.client() as c:
        gid, tokens, _ = new_race(c)
        stack.stop("worker")
        cid = str(uuid.uuid4())
        assert command(c, gid, tokens[0], "race.note", {"text": "lost"}, cid=cid, wait=False).status_code == 202
        # The broker's data is gone; the command is still queued in the store.
        lost = list(store.r.scan_iter(match=f"{namespace}-dramatiq:*"))
        assert lost
        store.r.delete(*lost)
        stack.start("worker2", "worker", "--threads", "1")
        wait_for(lambda: c.get(f"/v1/games/{gid}/commands/{cid}").status_code == 200, timeout=20)
        assert [e.data["text"] for e in store.read(gid) if e.type == "race.NoteWritten"] == ["lost"]
        assert '"event":"command.requeued"' in (tmp_path / "projector.log").read_text()
        # Answered: the sweep forgets it.
        wait_for(lambda: store.r.zcard(store.keys(gid).queued) == 0, timeout=10)
