"""Settings: every field has its environment variable, read as its default's type, and a child
process given `env()` reads the same settings back."""

from __future__ import annotations

from dataclasses import fields

import pytest

from service.runtime.settings import ENV, Settings


def test_every_setting_has_one_variable_and_env_round_trips(monkeypatch: pytest.MonkeyPatch) -> None:
    assert [f.name for f in fields(Settings)] == list(ENV) and len(set(ENV.values())) == len(ENV)
    for name in ENV.values():
        monkeypatch.delenv(name, raising=False)
    changed = Settings(namespace="x1", partitions=3, extra_games=("a", "b:GAME"), wake_consumer=False,
                       command_wait_seconds=2.5, smtp_port=2525, signing_key="k")
    for name, value in changed.env().items():
        monkeypatch.setenv(name, value)
    assert Settings.from_env() == changed


def test_each_variable_reads_as_its_settings_type(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOARDLOG_WAKE_CONSUMER", "0")
    monkeypatch.setenv("BOARDLOG_WAIT_SECONDS", "3")
    monkeypatch.setenv("BOARDLOG_PARTITIONS", "5")
    monkeypatch.setenv("BOARDLOG_EXTRA_GAMES", "m1,,m2")
    s = Settings.from_env(namespace="over")
    assert s.wake_consumer is False and s.command_wait_seconds == 3.0 and isinstance(s.command_wait_seconds, float)
    assert s.partitions == 5 and s.extra_games == ("m1", "m2") and s.namespace == "over"
    monkeypatch.setenv("BOARDLOG_PARTITIONS", "many")
    with pytest.raises(ValueError):
        Settings.from_env()
