"""Shared pytest set-up for the system tests.

Every test in a module that boots the VM bed (it imports `Bed` from deploy/vm/bed.py) is
marked `bed`, so `deploy/test --quick` can leave the guests out with `-m "not bed"`. The mark
is derived, not written by hand in each file, so a new bed test cannot forget it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "deploy" / "vm"))

from bed import Bed  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "bed: boots the QEMU bed (real KMS, ALSA loopback, uinput); "
                                       "left out by deploy/test --quick")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        module = getattr(item, "module", None)
        if module is not None and any(value is Bed for value in vars(module).values()):
            item.add_marker(pytest.mark.bed)


@pytest.fixture(scope="session", autouse=True)
def beside_the_others(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """A run that mostly waits (test_sync's ten-minute wall of three light processes on the
    host) starts with the session's first test and plays beside the others, instead of holding
    the suite for its whole length where pytest reaches it: a module selected for this session
    that defines `start_beside_the_others(tmp_path_factory)` is started here once; its own
    fixture collects the result (and says any failure to start) when its tests run."""
    started = set()
    for item in request.session.items:
        module = getattr(item, "module", None)
        begin = getattr(module, "start_beside_the_others", None)
        if begin is not None and module not in started:
            started.add(module)
            begin(tmp_path_factory)
    yield
