"""Content sync through power cuts (issue 21), in the VM bed: the store on a virtio-blk ext4 disk
made at test time (the bed's 9p work share writes through to the host at once, so a cut there
would lose nothing; a block device under the guest's own page cache does), the server on the
guest's loopback, and 20 QMP `quit`s while `kiosk sync --once` fetches and switches.

One boot per cycle. The guest starts http_media_server.py --etag on 127.0.0.1 (paced per
response), loads virtio_blk and ext4, mounts /dev/vda, writes what the store holds as it found it
(where `current` points, the sha256 of every file of that set, the partials) into state-N.txt,
and runs `kiosk sync --once` towards set N, made by the host for that boot (a.mp4 shared by all
sets, b.mp4 and cN.mp4 new: 1.9 MB to fetch each time), then waits to be cut. The host sleeps a
delay drawn from random.Random(SEED) and sends QMP `quit`: odd cuts 0 to 1.15 times the uncut
sync's length after the guest's `syncing-N` mark (mostly in the fetch: the server paces each
response), even cuts 0 to 0.6 s after `switched-N`, written by the guest's server process as soon as
`current` changes (power_cut_guest.py polls the link every 5 ms)
(the switch's last steps, the clean-up, the ETag's save, and just after). Then on the host: the
journal is replayed on a copy of the image (what the next mount does; `e2fsck -n` alone on an
image with an unreplayed journal reports the differences the journal is there to fix, exit 4)
and `e2fsck -n -f` of that copy must exit 0; and the next boot's state-N.txt must show a whole
set: `current` names a set whose files are, slot by slot, exactly the names and sha256s of the
set current before the cut or of the one being synced. Boot 0 syncs set 0 uncut (the first old
set, and the sync's length); a last boot only looks. Every wait is for a file the guest writes;
the only sleep is the cut's delay.

Each set has its own manifest URL. An earlier form of this test alternated two manifests and
found a bug that way, fixed since: a cut just after the switch left the store's manifest.etag
naming the old manifest while `current` was the new set (the ETag's save came after the switch
and its rename was not yet durable), so when the server served the old manifest again (a
rollback) the next pass got 304, said "unchanged", and stayed on the new set. The ETag file now
names its set and an ETag for another set is ignored (SyncStoreTests).
"""
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "deploy" / "vm"))
from bed import Bed, BOOT_TIMEOUT  # noqa: E402

# The release build when there is one (CI makes both): the sync's hashing and start are ~1.5 s
# shorter per boot under TCG, and the cuts' spread follows the sync's length.
# KIOSK_BINARY names another (as for test_av_sync: a release build older than the debug one).
KIOSK = Path(os.environ["KIOSK_BINARY"]) if os.environ.get("KIOSK_BINARY") else next(
    (p for p in (REPO / ".build" / "release" / "kiosk", REPO / ".build" / "debug" / "kiosk") if p.exists()),
    REPO / ".build" / "debug" / "kiosk")
GUEST = Path(__file__).resolve().parent / "power_cut_guest.py"
CUTS = 20
SEED = 21
PORT = 8080
RATE = 700_000            # bytes/s per response: b.mp4 takes ~2 s
SHARED = os.urandom(400_000)


def set_files(n):
    """Set n: a.mp4, one object every set shares; b.mp4 and c<n>.mp4, new in each set, so every
    cycle fetches (2 MB) whatever the cuts before left in objects/ and partial/."""
    return {"a.mp4": SHARED, "b.mp4": os.urandom(1_300_000), f"c{n}.mp4": os.urandom(600_000)}

GUEST_COMMAND = r'''
N=@N@
K=@KIOSK@
# The server first: Python starts in ~4 s under TCG, while the disk is loaded and looked at.
ip link set lo up
# The same process marks the switch (power_cut_guest.py): switched-N once `current` no longer
# names what old-N says.
python3 @GUEST@ /tmp/store/current old-$N switched-$N -- www @PORT@ @RATE@ --etag > server-$N.port 2>server-$N.err &
modprobe virtio_blk && modprobe ext4 || { echo "modprobe failed"; exit 3; }
i=0; until [ -b /dev/vda ]; do sleep 0.05; i=$((i + 1)); [ $i -lt 400 ] || { echo "no /dev/vda"; exit 4; }; done
mkdir -p /tmp/store && mount -t ext4 /dev/vda /tmp/store || { echo "mount failed"; exit 5; }
{
    echo "current $(readlink /tmp/store/current)"
    if [ -d /tmp/store/current ]; then
        (cd /tmp/store/current && for f in */*; do [ -f "$f" ] && echo "file $f $(sha256sum < "$f" | cut -d' ' -f1)"; done)
    fi
    for p in /tmp/store/partial/*; do [ -f "$p" ] && echo "partial ${p##*/} $(stat -c %s "$p")"; done
    echo "objects $(ls /tmp/store/objects 2>/dev/null | wc -l) sets $(ls /tmp/store/sets 2>/dev/null | tr '\n' ' ')"
} > state-$N.tmp && mv state-$N.tmp state-$N.txt
SET=@SET@
if [ "$SET" = none ]; then umount /tmp/store; exit 0; fi
i=0; until [ -s server-$N.port ]; do sleep 0.05; i=$((i + 1)); [ $i -lt 600 ] || { echo "no server"; exit 6; }; done
# The switch as the host cannot see it (the store is on the guest's disk): current changes.
readlink /tmp/store/current > old-$N.tmp; mv old-$N.tmp old-$N
touch syncing-$N
$K sync --once --config kiosk-$SET.conf > sync-$N.log 2>&1
echo $? > synced-$N
if [ "$N" = 0 ]; then umount /tmp/store; exit 0; fi
sleep 600   # until the cut
'''


def write_set(work: Path, n: int):
    """Set n's media, its manifest (www/manifest-<n>.json) and a kiosk.conf whose sync points at
    it (kiosk-<n>.conf, the store on the guest's disk); returns the manifest's (name, sha256)s."""
    folder = work / "www" / str(n)
    folder.mkdir(parents=True)
    for file, data in set_files(n).items():
        (folder / file).write_bytes(data)
    out = work / "www" / f"manifest-{n}.json"
    subprocess.run([str(KIOSK), "manifest", str(folder), "--base-url", f"http://127.0.0.1:{PORT}/{n}/", "-o", str(out)],
                   check=True, capture_output=True)
    (work / f"kiosk-{n}.conf").write_text(
        f"sync:\n  manifest: http://127.0.0.1:{PORT}/manifest-{n}.json\n  dir: /tmp/store\n"
        "  min_free: 1M\nitems:\n  - sync: true\n")
    return [(f["name"], f["sha256"]) for f in json.loads(out.read_text())["files"]]


def read_state(path: Path):
    current, files, partials, rest = None, [], [], ""
    for line in path.read_text().splitlines():
        word, _, value = line.partition(" ")
        if word == "current":
            current = value or None
        elif word == "file":
            slot_name, _, sha = value.rpartition(" ")
            files.append((slot_name, sha))
        elif word == "partial":
            partials.append(value)
        else:
            rest = line
    return current, files, partials, rest


def whole_set(current, files, manifests):
    """Which set `current` holds whole (its number), or None."""
    if not current or not current.startswith("sets/"):
        return None
    listed = [(slot_name.split("/", 1)[1], sha) for slot_name, sha in files]
    slots = [slot_name.split("/", 1)[0] for slot_name, _ in files]
    if slots != [f"{n:04d}" for n in range(1, len(files) + 1)]:
        return None
    for name, wanted in manifests.items():
        if listed == wanted:
            return name
    return None


def fsck(image: Path, work: Path, n: int):
    """Replay the journal on a copy (as the next mount would), then `e2fsck -n -f` it."""
    copy = work / "fsck.img"
    shutil.copyfile(image, copy)
    raw = subprocess.run(["e2fsck", "-n", "-f", str(copy)], capture_output=True, text=True)
    replay = subprocess.run(["e2fsck", "-p", "-E", "journal_only", str(copy)], capture_output=True, text=True)
    check = subprocess.run(["e2fsck", "-n", "-f", str(copy)], capture_output=True, text=True)
    (work / f"fsck-{n}.log").write_text(f"--- e2fsck -n -f (journal not replayed): {raw.returncode}\n{raw.stdout}{raw.stderr}"
                                        f"--- e2fsck -p -E journal_only: {replay.returncode}\n{replay.stdout}{replay.stderr}"
                                        f"--- e2fsck -n -f: {check.returncode}\n{check.stdout}{check.stderr}")
    copy.unlink()
    return check.returncode, raw.returncode


@pytest.mark.skipif(not KIOSK.exists(), reason="needs a build (swift build)")
@pytest.mark.skipif(shutil.which("qemu-system-x86_64") is None, reason="needs qemu-system-x86")
def test_twenty_power_cuts_leave_a_whole_set(tmp_path):
    began = time.monotonic()
    work = tmp_path
    manifests = {0: write_set(work, 0)}
    image = work / "store.img"
    with open(image, "wb") as f:
        f.truncate(64 * 1024 * 1024)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(image)], check=True)
    rng = random.Random(SEED)
    results, failures = [], []
    calibration = None

    def command(n, serve):
        return (GUEST_COMMAND.replace("SET=@SET@", serve).replace("@N@", str(n)).replace("@KIOSK@", str(KIOSK))
                .replace("@GUEST@", str(GUEST)).replace("@PORT@", str(PORT)).replace("@RATE@", str(RATE)))

    # Boot 0: set 0, uncut; its length (from the host's view) sets the spread of the cuts.
    with Bed(workdir=work, drives=[image], memory="512M") as bed:
        bed.start(command(0, "SET=0"))
        bed.wait_for_file("syncing-0", timeout=BOOT_TIMEOUT)
        t0 = time.monotonic()
        bed.wait_for_file("synced-0", timeout=120)
        calibration = time.monotonic() - t0
        assert bed.wait(timeout=60) == 0, bed.console_log()
    assert (work / "synced-0").read_text().strip() == "0", (work / "sync-0.log").read_text()
    code, _ = fsck(image, work, 0)
    assert code == 0, (work / "fsck-0.log").read_text()
    print(f"uncut sync of set 0 (3 files, 2.3 MB): {calibration:.2f} s (host's view)")
    before = 0   # the set current before the last cut

    for n in range(1, CUTS + 2):
        cut = n <= CUTS
        # What boot n found is what cut n-1 left (boot 1: what boot 0 left).
        state_path = work / f"state-{n}.txt"
        # The set to fetch (the one not current) is chosen from the state the guest reports, so the
        # guest waits for the host's choice in serve-N.
        (work / f"serve-{n}").unlink(missing_ok=True)
        with Bed(workdir=work, drives=[image], memory="512M") as bed:
            bed.start(command(n, f"i=0; until [ -s serve-{n} ]; do sleep 0.05; i=$((i + 1)); "
                                 f"[ $i -lt 2400 ] || exit 7; done; SET=$(cat serve-{n})"))
            bed.wait_for_file(f"state-{n}.txt", timeout=BOOT_TIMEOUT)
            current, files, partials, rest = read_state(state_path)
            found = whole_set(current, files, manifests)
            record = {"boot": n, "current": current, "set": found, "partials": partials, "store": rest}
            if found is None or found not in (before, n - 1):
                failures.append(f"boot {n}: not a whole set (old {before} or new {n - 1}) after cut {n - 1}: "
                                + state_path.read_text())
            before = found
            if results:
                results[-1]["after"] = found
            if not cut:
                (work / f"serve-{n}").write_text("none\n")
                assert bed.wait(timeout=60) == 0, bed.console_log()
                results.append(record)
                break
            serve = n
            manifests[n] = write_set(work, n)
            (work / f"serve-{n}.tmp").write_text(f"{serve}\n")
            (work / f"serve-{n}.tmp").rename(work / f"serve-{n}")
            # Odd cuts: anywhere from the start of the sync to a little past its uncut length (the
            # fetch mostly). Even cuts: within 0.6 s of the guest seeing `current` change (the
            # switch's last steps and the clean-up), which random delays alone rarely hit.
            if n % 2:
                mark, delay = f"syncing-{n}", rng.uniform(0, calibration * 1.15)
            else:
                mark, delay = f"switched-{n}", rng.uniform(0, 0.6)
            deadline = time.monotonic() + 120
            while not (work / mark).exists():
                log = work / f"sync-{n}.log"
                if (work / f"synced-{n}").exists() and not (work / mark).exists() and "switched" not in log.read_text():
                    failures.append(f"boot {n}: the sync towards set {serve} ended without switching: "
                                    + (work / f"sync-{n}.log").read_text().strip() + f" (store as found: {rest})")
                    break
                if (work / f"synced-{n}").exists() and not (work / mark).exists():
                    break   # switched, but the sync ended before the guest's watcher saw it
                assert bed.running and time.monotonic() < deadline, f"boot {n}: no {mark}; {bed.console_log()}"
                time.sleep(0.02)
            time.sleep(delay)
            finished = (work / f"synced-{n}").exists()
            bed.power_cut()
        record.update(serve=serve, cut=f"{mark} + {delay:.2f} s", sync_finished_before_cut=finished)
        results.append(record)
        code, raw = fsck(image, work, n)
        record.update(fsck=code, fsck_unreplayed=raw)
        if code != 0:
            failures.append(f"cut {n}: e2fsck -n -f after journal replay exited {code}:\n"
                            + (work / f"fsck-{n}.log").read_text())

    (work / "power-cuts.json").write_text(json.dumps(results, indent=1))
    whole = sum(1 for r in results[:-1] if r.get("after") is not None)
    took = time.monotonic() - began
    switched = sum(1 for r in results[:-1] if r.get("after") == r.get("serve"))
    print(f"{whole}/{CUTS} power cuts left a whole set ({switched} the new one, {CUTS - switched} the old); "
          f"{sum(1 for r in results[:-1] if r.get('fsck') == 0)}/{CUTS} e2fsck clean; {took:.0f} s; {work}/power-cuts.json")
    assert not failures, "\n".join(failures)
    assert whole == CUTS
