"""Runs in test_content_sync_power.py's guest: the HTTP server the sync fetches from, and in the
same process a watcher that marks the moment the store's `current` link changes.

    python3 power_cut_guest.py LINK OLD_FILE MARK -- SERVER_ARGUMENTS...

The watcher waits for OLD_FILE (the link's target before the sync, written by the guest's
script), then reads LINK every 5 ms until it names another target, and touches MARK. It used
to be a shell loop of `readlink` and `sleep 0.01`: two processes started every ~10 ms kept a
guest CPU busy through every sync under TCG (an exec of either costs ~110-120 ms of a guest CPU
there). With it gone and the bed's busybox sleep the file took 527 CPU s, not 744-756 (#34). In
the server's process a poll is one syscall, and Python starts once a boot, not twice."""
import os
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import http_media_server  # noqa: E402

POLL_SECONDS = 0.005


def target(link: str) -> str:
    try:
        return os.readlink(link)
    except OSError:
        return ""


def watch(link: str, old_file: Path, mark: Path) -> None:
    # old-N comes over the 9p work share (cache=none: a round trip to QEMU a look), seconds
    # before the sync can switch: a coarser poll for it.
    while not old_file.exists():
        time.sleep(0.05)
    old = old_file.read_text().strip()
    while target(link) == old:
        time.sleep(POLL_SECONDS)
    mark.touch()


def main() -> None:
    if len(sys.argv) < 5 or sys.argv[4] != "--":
        sys.exit("usage: power_cut_guest.py LINK OLD_FILE MARK -- SERVER_ARGUMENTS...")
    link, old_file, mark = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    threading.Thread(target=watch, args=(link, old_file, mark), daemon=True).start()
    sys.argv = [sys.argv[0], *sys.argv[5:]]
    http_media_server.main()


if __name__ == "__main__":
    main()
