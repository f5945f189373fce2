"""The kiosk the system tests run, on the host and in the bed's guests, and the unit tests'
binary the bed's test_audio and test_drm run in a guest (#34, the suite's time).

deploy/test (CI) builds no debug kiosk: the unit tests are built and run optimised
(`swift build -c release --build-tests -Xswiftc -enable-testing`, scratch .build-tests: a third
of the debug build's time, and `swift test` in half), and the system tests run the release
kiosk, the binary a box runs (static Swift runtime), linked from that build's objects by
deploy/link-static-kiosk (.build-static/kiosk). It exports both paths: KIOSK_BINARY and
KIOSK_TEST_BINARY. Under QEMU's TCG every guest instruction is translated, and a debug kiosk
(-Onone: no inlining, every retain kept) costs the guests several times the CPU.

Without them (a developer's loop: `swift build`, `deploy/test --quick`, pytest by hand), the
release build runs when it is as new as the debug one, else the debug one, so an edit is never
tested against an older binary."""
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEBUG = REPO / ".build" / "debug" / "kiosk"
RELEASE = REPO / ".build" / "release" / "kiosk"


def built_kiosk() -> Path:
    if os.environ.get("KIOSK_BINARY"):
        return Path(os.environ["KIOSK_BINARY"])
    if RELEASE.exists() and (not DEBUG.exists() or RELEASE.stat().st_mtime >= DEBUG.stat().st_mtime):
        return RELEASE
    return DEBUG


KIOSK = built_kiosk()
TEST_BINARY = Path(os.environ.get("KIOSK_TEST_BINARY") or REPO / ".build" / "debug" / "kioskPackageTests.xctest")
