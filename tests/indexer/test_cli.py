"""``lantern COMMAND``: each subcommand reaches its program under the name typed.

Run in this process (no crawl, no server): what a subcommand answers to
``--version`` and ``--help``, and what the dispatcher says when no command,
or an unknown one, is given. tests/test_install.py runs the installed
command.
"""

from __future__ import annotations

import pytest

from crawler.version import VERSION, typed_command
from indexer.cli import COMMANDS, main

NAME = typed_command("indexer.cli")


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_subcommand_answers_version_under_its_name(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main([command, "--version"])
    assert exit.value.code == 0
    assert capsys.readouterr().out == f"{NAME} {command} (Lantern) {VERSION}\n"


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_subcommand_usage_names_it(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main([command, "--help"])
    assert exit.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: {NAME} {command} ")


def test_no_command_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    listed = capsys.readouterr().err
    assert all(f"  {command} " in listed for command in COMMANDS)


def test_an_unknown_command_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["crawll", "https://example.org/"])
    assert exit.value.code == 2
    assert "invalid choice: 'crawll'" in capsys.readouterr().err.splitlines()[-1]
