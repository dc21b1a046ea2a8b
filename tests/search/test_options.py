"""The options ``python -m search`` and ``python -m search.web`` share: one meaning, one set of checks."""

from __future__ import annotations

import argparse
import re

import pytest

from crawler import settings
from search import web
from search.__main__ import main as search_main
from search.options import add_data_option, add_engine_options, data_dirs, engine_options


def _help(main, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    return capsys.readouterr().out


def _described(text: str, option: str) -> str:
    """An option's entry in a help text, its lines joined."""
    found = re.search(rf"^  {option}\b(.*?)(?=^  -|\Z)", text, re.MULTILINE | re.DOTALL)
    assert found, option
    return " ".join(found.group(0).split())


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="probe")
    add_data_option(parser)
    add_engine_options(parser)
    return parser


def test_both_commands_describe_the_shared_options_alike(capsys: pytest.CaptureFixture[str]) -> None:
    cli, server = _help(search_main, capsys), _help(web.main, capsys)
    for option in ("--data", "--anchor-only", "--members-snippet"):
        assert _described(cli, option) == _described(server, option)
    assert "(default: SEARCH_ANCHOR_ONLY, rank)" in _described(cli, "--anchor-only")


def test_the_defaults_named_are_the_settings_when_the_command_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings, "SEARCH_ANCHOR_ONLY", "last")
    monkeypatch.setattr(settings, "DATA_DIR", "elsewhere")
    text = " ".join(_parser().format_help().split())
    assert "(default: SEARCH_ANCHOR_ONLY, last)" in text and "data directory (default: elsewhere)" in text
    assert data_dirs(_parser().parse_args([])) == ["elsewhere"]
    assert data_dirs(_parser().parse_args(["--data", "a", "--data", "b"])) == ["a", "b"]


def test_options_not_given_leave_the_engine_its_settings() -> None:
    assert engine_options(_parser().parse_args([])) == {"anchor_only": None, "members_snippet": None}
    given = _parser().parse_args(["--anchor-only", "hide", "--members-snippet", "none"])
    assert engine_options(given) == {"anchor_only": "hide", "members_snippet": "none"}


@pytest.mark.parametrize(("option", "value"), [("--anchor-only", "first"), ("--members-snippet", "long")])
def test_an_unknown_choice_is_refused_with_the_choices(
    option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        _parser().parse_args([option, value])
    assert exited.value.code == 2
    assert f"argument {option}: invalid choice: '{value}' (choose from" in capsys.readouterr().err
