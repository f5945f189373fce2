"""Shared pytest set-up for the system tests.

Every test in a module that boots the VM bed (it imports `Bed` from deploy/vm/bed.py) is
marked `bed`, so `deploy/test --quick` can leave the guests out with `-m "not bed"`. The mark
is derived, not written by hand in each file, so a new bed test cannot forget it.

test_sync.py's ten-minute wall, when its tests are selected, begins in the background as soon as
the tests are collected, and its tests run last (see that module's text).
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


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    # After every other hook's selection (-m, -k, deselection): only tests that will run count.
    sync = [item for item in session.items if getattr(item, "module", None) is not None
            and item.module.__name__ == "test_sync"]
    if not sync or session.config.option.collectonly:
        return
    session.items[:] = [item for item in session.items if item not in sync] + sync
    sync[0].module.begin_in_background(session.config._tmp_path_factory.mktemp("sync"))


def pytest_sessionfinish(session: pytest.Session) -> None:
    module = sys.modules.get("test_sync")
    if module is not None and module.Background.current is not None:
        module.Background.current.stop()
