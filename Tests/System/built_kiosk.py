"""The kiosk binary the bed's guests run (#34, the suite's time).

Under QEMU's TCG every instruction of the guest is translated: a debug kiosk (-Onone: no
inlining, every Swift bounds check and retain kept) costs the guest's two emulated CPUs several
times what the release build does for the same behaviour, and the bed's half of the suite is
bound by the host's CPU (two or three guests at once kept both cores at 100 %). So the guests
run the release build when it is as new as the debug one (deploy/test builds both from the
same sources; a developer's `swift build` after an edit makes the debug one newer, and then it
is the debug one that runs, so an edit is never tested against an older binary). `swift test`
and the host's system tests keep exercising the debug build, but for the two longest CPU-bound
ones, test_soak.py (10,000 item plays) and test_sync.py (three kiosks for ten minutes), which run
this one too. KIOSK_BINARY names another binary."""
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEBUG = REPO / ".build" / "debug" / "kiosk"
RELEASE = REPO / ".build" / "release" / "kiosk"


def bed_kiosk() -> Path:
    if os.environ.get("KIOSK_BINARY"):
        return Path(os.environ["KIOSK_BINARY"])
    if RELEASE.exists() and (not DEBUG.exists() or RELEASE.stat().st_mtime >= DEBUG.stat().st_mtime):
        return RELEASE
    return DEBUG


KIOSK = bed_kiosk()
