"""The projection gap follows the projector's CPU share (projections/pace.py)."""

import pytest

from projections.pace import Pace


def test_pace_stays_at_the_floor_while_the_projector_is_light() -> None:
    pace = Pace(0.05, 0.5, share=0.10)
    pace.observe(0.0, 0.0)
    for t in range(1, 10):
        assert pace.observe(float(t), t * 0.04) == 0.05  # 4% of a core


def test_pace_grows_while_busy_up_to_the_ceiling_then_shrinks_back() -> None:
    pace = Pace(0.05, 0.5, share=0.10)
    pace.observe(0.0, 0.0)
    seen = [pace.observe(float(t), t * 0.30) for t in range(1, 12)]  # 30% of a core
    assert seen[0] == pytest.approx(0.075)
    assert seen == sorted(seen) and seen[-1] == 0.5
    cpu = 11 * 0.30
    after = []
    for t in range(12, 24):
        cpu += 0.01  # 1%: light again
        after.append(pace.observe(float(t), cpu))
    assert after == sorted(after, reverse=True) and after[-1] == 0.05


def test_pace_holds_between_half_and_the_whole_share() -> None:
    pace = Pace(0.05, 0.5, share=0.10)
    pace.observe(0.0, 0.0)
    pace.observe(1.0, 0.3)  # grown once
    assert pace.observe(2.0, 0.3 + 0.07) == pytest.approx(0.075)  # 7%: neither grows nor shrinks


def test_pace_waits_a_whole_window_before_it_changes() -> None:
    pace = Pace(0.05, 0.5, share=0.10, window=1.0)
    pace.observe(0.0, 0.0)
    assert pace.observe(0.5, 0.5) == 0.05  # busy, but half a window only
    assert pace.observe(1.0, 0.9) == pytest.approx(0.075)


def test_a_zero_floor_never_grows() -> None:
    """Tests project every entry at once with min_gap 0: busy or not, it stays 0."""
    pace = Pace(0.0, 0.5)
    pace.observe(0.0, 0.0)
    assert [pace.observe(float(t), t * 1.0) for t in range(1, 5)] == [0.0] * 4


def test_gaps_out_of_order_are_refused() -> None:
    with pytest.raises(ValueError, match="min_gap <= max_gap"):
        Pace(0.5, 0.05)
