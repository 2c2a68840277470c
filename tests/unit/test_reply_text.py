"""What a reply to a boardlog mail says in its own words (workers/notifications/replytext.py),
however the mail program laid it out: hand-written replies."""

from __future__ import annotations

from email.message import EmailMessage

from workers.notifications.replytext import own_lines, reply_lines

OURS = ("Reply to this mail with your move as its first line (in the game's notation).\n\n"
        "bob, it is your turn in Rite p01-x: take an action.\n\nYour legal moves (reply with one of them):\n"
        "  pass\n  move c3 c4\n\n--\nStop these mails: http://b/unsub\n")


def test_a_top_posted_reply_is_the_text_above_the_quote() -> None:
    quoted = "\n".join("> " + line for line in OURS.splitlines())
    assert own_lines(f"move c3 c4\n\nOn Tue, boardlog wrote:\n{quoted}\n") == ["move c3 c4"]


def test_a_bottom_posted_reply_is_the_text_below_the_quote() -> None:
    quoted = "\n".join("> " + line for line in OURS.splitlines())
    assert own_lines(f"On Tue 3 Dec, boardlog <b@x> wrote:\n{quoted}\n\npass\n") == ["pass"]


def test_a_quote_pasted_without_marks_is_left_out_above_or_below() -> None:
    assert own_lines(f"pass\n\n-----Original Message-----\nFrom: boardlog\n{OURS}") == ["pass"]
    assert own_lines(f"On Tue, boardlog wrote:\n{OURS}\nmove c3 c4\n") == ["move c3 c4"]


def test_the_writers_signature_ends_the_reply() -> None:
    assert own_lines("pass\nthanks!\n-- \nbob\nmove c3 c4\n") == ["pass", "thanks!"]


def test_an_html_only_reply_is_read_without_its_blockquote() -> None:
    msg = EmailMessage()
    msg.set_content("<html><head><style>p{}</style></head><body><div>move c3&nbsp;c4</div>"
                    "<div>On Tue, boardlog wrote:<blockquote><p>pass</p></blockquote></div></body></html>",
                    subtype="html")
    assert reply_lines(msg) == ["move c3 c4"]


def test_a_plain_reply_beside_its_html_is_read_from_the_plain_part() -> None:
    msg = EmailMessage()
    msg.set_content("pass\n")
    msg.add_alternative("<p>move c3 c4</p>", subtype="html")
    assert reply_lines(msg) == ["pass"]
