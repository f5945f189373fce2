"""Runs in test_content_sync_power.py's guest, one boot for all the cuts: the HTTP server the
sync fetches from (a thread), and the cycles the host steers through files in the work share.

    python3 power_cut_guest.py KIOSK DISK -- SERVER_ARGUMENTS...

The store is an ext4 on DISK seen through a device-mapper flakey target (`store`), the way
xfstests simulates a power cut without one: at the cut the table is swapped (suspend without
freezing the file system, load, resume) for one that drops every write silently, kiosk is
killed, and the file system is unmounted. Whatever the guest's page cache held and had not
sent to the disk by then is lost, as in a cut; what it had sent stays (in the image on the host,
as after QMP `quit` with cache=writeback). The next cycle mounts the disk again through a table
that lets writes through, and the kernel replays the journal, as a boot would.

Per cycle N (from 0):
  1. waits for go-N (the host has checked the image after the cut before; cycle 0 at once),
     mounts the store and writes state-N.txt: where `current` points, the sha256 of every file
     of that set, the partials, the objects and sets;
  2. waits for serve-N: "none" (the last cycle: unmount cleanly and exit), or "SET MARK DELAY"
     with MARK `syncing` (a delay after the sync starts), `switched` (after `current` changes)
     or `uncut` (the sync runs to its end and the store is unmounted cleanly);
  3. touches syncing-N and runs `KIOSK sync --once --config kiosk-SET.conf` (its output in
     sync-N.log, its status in synced-N), reading the `current` link every 5 ms: switched-N
     once it names another set;
  4. DELAY seconds after MARK: the cut, then cut-N with what it hit (JSON). Right after the cut
     a file is written and fsynced; the next state-N.txt says whether it survived (`after-cut`,
     which must be `no`: the proof that the cut held writes back).
Each boot of the old form cost ~30 CPU-s of TCG (the kernel's boot, Python's start, modprobe,
a dozen execs of coreutils) for a sync of a few: 685 CPU-s for the file in CI (#34)."""
import json
import hashlib
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import http_media_server  # noqa: E402

STORE = Path("/tmp/store")
AFTER_CUT = "written-after-the-cut"
POLL_SECONDS = 0.005
# dm-flakey: <dev> <offset> <up interval s> <down interval s> [<features>]. Up for good: writes
# go through; down for good with drop_writes: each write is acknowledged and thrown away.
ALLOW = "0 {sectors} flakey {disk} 0 86400 0"
DROP = "0 {sectors} flakey {disk} 0 0 86400 1 drop_writes"


def wait_for(path: Path) -> str:
    """The file's text once the host has written it (it renames it into place)."""
    while not path.exists():
        time.sleep(0.02)
    return path.read_text().strip()


def dmsetup(*arguments: str) -> None:
    # The guest runs no udev: libdevmapper makes /dev/mapper's nodes itself and waits for no one.
    done = subprocess.run(["dmsetup", *arguments], capture_output=True, text=True,
                          env=dict(os.environ, DM_DISABLE_UDEV="1"))
    if done.returncode != 0:
        raise RuntimeError(f"dmsetup {' '.join(arguments)}: {done.stderr.strip()}")


def sha256(path: Path) -> str:
    with open(path, "rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


def target() -> str:
    try:
        return os.readlink(STORE / "current")
    except OSError:
        return ""


def state() -> str:
    """What the store holds, as the host's read_state reads it."""
    current = target()
    lines = [f"current {current}"]
    if (STORE / "current").is_dir():
        order = STORE / "current" / ".order"
        if order.is_file():
            lines.append("order " + json.dumps(order.read_text()))
        for slot in sorted(p for p in (STORE / "current").iterdir()):
            for file in sorted(slot.iterdir()) if slot.is_dir() else []:
                if file.is_file():
                    lines.append(f"file {slot.name}/{file.name} {sha256(file)}")
    partial = STORE / "partial"
    for file in sorted(partial.iterdir()) if partial.is_dir() else []:
        if file.is_file():
            lines.append(f"partial {file.name} {file.stat().st_size}")
    objects = len(list((STORE / "objects").iterdir())) if (STORE / "objects").is_dir() else 0
    sets = " ".join(sorted(p.name for p in (STORE / "sets").iterdir())) if (STORE / "sets").is_dir() else ""
    lines.append(f"after-cut {'yes' if (STORE / AFTER_CUT).exists() else 'no'}")
    lines.append(f"objects {objects} sets {sets}")
    return "\n".join(lines) + "\n"


def write(path: Path, text: str) -> None:
    """For the other side, which waits for the file: renamed into place whole."""
    partial = path.with_name(path.name + ".tmp")
    partial.write_text(text)
    partial.rename(path)


def cycle(n: int, kiosk: str, disk: str, sectors: int, work: Path) -> bool:
    """One cycle; False once the host said `none`."""
    if n > 0:
        wait_for(work / f"go-{n}")
    dmsetup("create", "store", "--table", ALLOW.format(sectors=sectors, disk=disk))
    STORE.mkdir(exist_ok=True)
    subprocess.run(["mount", "-t", "ext4", "/dev/mapper/store", str(STORE)], check=True, capture_output=True)
    write(work / f"state-{n}.txt", state())
    words = wait_for(work / f"serve-{n}").split()
    if words == ["none"]:
        subprocess.run(["umount", str(STORE)], check=True)
        dmsetup("remove", "store")
        return False
    wanted, mark, delay = words[0], words[1], float(words[2])
    old = target()
    (work / f"syncing-{n}").touch()
    started = time.monotonic()
    with open(work / f"sync-{n}.log", "w") as log:
        sync = subprocess.Popen([kiosk, "sync", "--once", "--config", str(work / f"kiosk-{wanted}.conf")],
                                stdout=log, stderr=subprocess.STDOUT)
    switched_at = None
    synced = False

    def look() -> None:
        nonlocal switched_at
        if switched_at is None and target() != old:
            switched_at = time.monotonic()
            (work / f"switched-{n}").touch()

    while True:
        look()
        if not synced and sync.poll() is not None:
            look()   # a switch in its last moments
            write(work / f"synced-{n}", f"{sync.returncode}\n")
            synced = True
        now = time.monotonic()
        if mark == "uncut" and synced:
            subprocess.run(["umount", str(STORE)], check=True)
            dmsetup("remove", "store")
            write(work / f"cut-{n}", json.dumps({"uncut": True, "seconds": now - started}))
            return True
        if mark == "syncing" and now >= started + delay:
            break
        if mark == "switched" and switched_at is not None and now >= switched_at + delay:
            break
        if mark == "switched" and synced and switched_at is None:
            break   # ended without switching: the host says so from synced-N and the log
        time.sleep(POLL_SECONDS)
    # The cut: writes dropped from here on (suspend waits for those already sent to the disk).
    cut_at = time.monotonic()
    finished = sync.poll() is not None
    dmsetup("suspend", "--nolockfs", "store")
    dmsetup("load", "store", "--table", DROP.format(sectors=sectors, disk=disk))
    dmsetup("resume", "store")
    # Proof that the cut holds: a file written and fsynced after it must not be there next time
    # (state(): `after-cut yes`, which the host refuses).
    with open(STORE / AFTER_CUT, "w") as marker:
        marker.write(f"written after cut {n}\n")
        marker.flush()
        os.fsync(marker.fileno())
    if sync.poll() is None:
        sync.kill()
    sync.wait()
    subprocess.run(["umount", str(STORE)], check=True)
    dmsetup("remove", "store")
    write(work / f"cut-{n}", json.dumps({"mark": mark, "delay": delay, "after_start": cut_at - started,
                                         "sync_finished_before_cut": finished,
                                         "switched_before_cut": switched_at is not None and switched_at <= cut_at}))
    return True


def main() -> None:
    if len(sys.argv) < 4 or sys.argv[3] != "--":
        sys.exit("usage: power_cut_guest.py KIOSK DISK -- SERVER_ARGUMENTS...")
    kiosk, disk = sys.argv[1], sys.argv[2]
    sys.argv = [sys.argv[0], *sys.argv[4:]]
    threading.Thread(target=http_media_server.main, daemon=True).start()
    port = int(sys.argv[2])
    while True:   # listening before the first sync asks it
        try:
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
            break
        except OSError:
            time.sleep(0.05)
    sectors = int(subprocess.run(["blockdev", "--getsz", disk], check=True, capture_output=True, text=True).stdout)
    work = Path.cwd()
    n = 0
    while cycle(n, kiosk, disk, sectors, work):
        n += 1


if __name__ == "__main__":
    main()
