"""Under ``pytest -n`` a test marked ``alone`` runs with no other test beside it: the
locks of tests/conftest.py, taken here by threads as the test processes take them."""

from __future__ import annotations

import threading
from pathlib import Path

from tests.conftest import _turn

ABSENT = 0.2  # seconds a test that must wait is given to get in anyway: absence has no event


class _Test:
    """A test taking its turn in a thread: in once it holds the lock, out when told."""

    def __init__(self, directory: Path, alone: bool) -> None:
        self.inside, self.done = threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._run, args=(directory, alone))
        self.thread.start()

    def _run(self, directory: Path, alone: bool) -> None:
        with _turn(directory, alone):
            self.inside.set()
            self.done.wait(10)

    def leave(self) -> None:
        self.done.set()
        self.thread.join(10)


def test_tests_run_side_by_side_but_not_beside_one_alone(tmp_path: Path) -> None:
    first, second = _Test(tmp_path, alone=False), _Test(tmp_path, alone=False)
    assert first.inside.wait(5) and second.inside.wait(5)  # two ordinary tests at once
    alone = _Test(tmp_path, alone=True)
    assert not alone.inside.wait(ABSENT)  # it waits for both
    first.leave()
    assert not alone.inside.wait(ABSENT)
    second.leave()
    assert alone.inside.wait(5)
    after = _Test(tmp_path, alone=False)
    assert not after.inside.wait(ABSENT)  # nothing beside it
    alone.leave()
    assert after.inside.wait(5)
    after.leave()


def test_a_test_waiting_to_run_alone_is_not_passed_over(tmp_path: Path) -> None:
    running = _Test(tmp_path, alone=False)
    assert running.inside.wait(5)
    alone = _Test(tmp_path, alone=True)
    assert not alone.inside.wait(ABSENT)  # it waits at the turnstile, holding it
    later = _Test(tmp_path, alone=False)
    assert not later.inside.wait(ABSENT)  # an ordinary test that came later waits behind it
    running.leave()
    assert alone.inside.wait(5) and not later.inside.is_set()
    alone.leave()
    assert later.inside.wait(5)
    later.leave()
