"""Content sync with the guest's clock at 2001 (issue 21), in the VM bed: a box whose RTC lost
its time and has no NTP yet. The guest's own clock is set with `date -s` (not faketime's
LD_PRELOAD, as the host test in test_content_sync_trust.py does), so kiosk sees it through every
call, its TLS library's included.

One boot: the guest serves a set over HTTPS from its loopback (http_media_server.py --tls, a
test CA made with openssl on the host, the server certificate valid from 2024-01-01), syncs set
A with the clock right, then sets the clock to 2001-01-01 and serves set B (a.mp4 and b.mp4).
`kiosk run` on the bochs KMS driver must play the cached set A (a.mp4 starts); its first pass
must log the clock line (`certificate valid from 2024-01-01, clock says 2001-01-01; retrying
when the clock is set`) and leave the next check in 2001. Then the guest sets the clock right
again with `date -s` and nothing else: sync.interval is an hour, so only the clock change can
start the next pass, which must switch to set B (b.mp4 starts). Then the other way: the clock
set to 2030 (that jump runs a pass: set B again, the next check in 2030), set C served, and the
clock set back to now, which alone must start the pass to C (c.mp4 starts): the wait for the next
pass is counted on the monotonic clock and ends when the wall clock is set, in either direction
(a wall-clock deadline would wait until 2030). Every wait is for a file or a line the guest
writes."""
import subprocess
import sys
from pathlib import Path

import pytest

from content_sync_support import make_ca, make_manifest, make_server_cert

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "deploy" / "vm"))
from bed import Bed, BOOT_TIMEOUT  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
from built_kiosk import KIOSK  # noqa: E402  (the release build when fresh: the guests run it)
SERVER = Path(__file__).resolve().parent / "http_media_server.py"
PORT = 8443
STEP_TIMEOUT = 240

GUEST_COMMAND = r'''
K=@KIOSK@
mark() { echo "MARK $1" >> events.log; }
started_after() { sed -n "/MARK $2/,\$p" events.log | grep -q "\"item_started\".*\"path\":\"$1\""; }
wait_until() { n=0; until "$@"; do sleep 0.2; n=$((n + 1)); [ $n -lt 1200 ] || { echo "timed out: $*"; return 1; }; done; }
ip link set lo up
python3 @SERVER@ www @PORT@ --etag --tls pki/server.pem pki/server.key > server.port 2> server.err &
wait_until test -s server.port || exit 3
# Set A with the clock right: the cache a box has when its clock is lost.
cp www/manifest-a.json www/manifest.json
$K sync --once --config kiosk.conf > first-sync.log 2>&1 || exit 4
RIGHT=$(date -u +%s)
date -u -s "2001-01-01 00:00:00" > /dev/null || exit 5
date -u +%Y-%m-%d > clock.txt
cp www/manifest-b.json www/manifest.json.tmp && mv www/manifest.json.tmp www/manifest.json
: > events.log
mark start
$K run --config kiosk.conf --audio none --control-socket /tmp/ctl.sock > kiosk.log 2>&1 &
KIOSK_PID=$!
wait_until test -S /tmp/ctl.sock || exit 6
$K ctl --socket /tmp/ctl.sock watch >> events.log 2>&1 &
wait_until started_after a.mp4 start || exit 7
wait_until grep -q "clock says 2001-" kiosk.log || exit 8
# The first pass is over once its next check is set (2001-01-01 plus the hour: 978310800): the
# clock is set after that, as on a box where NTP answers later.
next_in_2001() { $K ctl --socket /tmp/ctl.sock get sync > sync-2001.json 2>&1; grep -q '"next_check":97831' sync-2001.json; }
wait_until next_in_2001 || exit 9
mark clock-set
date -u -s "@$RIGHT" > /dev/null || exit 10
wait_until started_after b.mp4 clock-set || exit 11
# A clock set back from the future (a bad RTC corrected): a pass at 2030 (the jump forward starts
# it: B again, 304), set C served, then the clock back; that alone must start the pass to C.
date -u -s "2030-01-01 00:00:00" > /dev/null || exit 12
next_in_2030() { $K ctl --socket /tmp/ctl.sock get sync > sync-2030.json 2>&1; grep -q '"next_check":18934' sync-2030.json; }
wait_until next_in_2030 || exit 13
cp www/manifest-c.json www/manifest.json.tmp && mv www/manifest.json.tmp www/manifest.json
mark clock-back
date -u -s "@$RIGHT" > /dev/null || exit 14
wait_until started_after c.mp4 clock-back || exit 15
$K ctl --socket /tmp/ctl.sock get sync > sync-after.json 2>&1
kill -TERM $KIOSK_PID; wait $KIOSK_PID; echo $? > kiosk.rc
'''


def make_clip(path: Path, pattern: str):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", f"{pattern}=size=160x120:rate=25:duration=1",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(path)], check=True)


@pytest.mark.skipif(not KIOSK.exists(), reason="needs a kiosk build (swift build)")
def test_a_guest_at_2001_plays_its_cache_names_the_clock_and_syncs_once_the_clock_is_set(tmp_path):
    work = tmp_path
    pki = work / "pki"
    pki.mkdir()
    make_ca(pki, "ca", days=36500)   # still valid at 2030, where the guest's clock goes too
    make_server_cert(pki, "ca", "20240101000000Z", "20991231000000Z")
    www = work / "www"
    (www / "media").mkdir(parents=True)
    base = f"https://127.0.0.1:{PORT}/media/"
    make_clip(www / "media" / "a.mp4", "testsrc2")
    make_manifest(www, base)
    (www / "manifest.json").rename(www / "manifest-a.json")
    make_clip(www / "media" / "b.mp4", "smptebars")
    make_manifest(www, base)
    (www / "manifest.json").rename(www / "manifest-b.json")
    make_clip(www / "media" / "c.mp4", "rgbtestsrc")
    make_manifest(www, base)
    (www / "manifest.json").rename(www / "manifest-c.json")
    (work / "kiosk.conf").write_text(
        "display: {output: drm}\ninput: {enabled: false}\nplayback: {loop: playlist}\n"
        f"sync:\n  manifest: https://127.0.0.1:{PORT}/manifest.json\n  dir: {work}/store\n"
        f"  ca_file: {pki}/ca.pem\n  interval: 3600\n  min_free: 1M\nitems:\n  - sync: true\n")
    command = (GUEST_COMMAND.replace("@KIOSK@", str(KIOSK)).replace("@SERVER@", str(SERVER))
               .replace("@PORT@", str(PORT)))
    with Bed(driver="bochs", workdir=work, memory="1G") as bed:
        bed.start(command)
        code = bed.wait(timeout=BOOT_TIMEOUT + STEP_TIMEOUT)

    def read(name):
        path = work / name
        return path.read_text() if path.exists() else f"({name} missing)"
    where = (f"exit {code}; first sync: {read('first-sync.log')}\nkiosk.log: {read('kiosk.log')}\n"
             f"sync-2001.json: {read('sync-2001.json')}\nsync-2030.json: {read('sync-2030.json')}\nconsole: {bed.console_log()[-3000:]}")
    assert code == 0, where
    assert read("clock.txt").strip() == "2001-01-01", where
    log = read("kiosk.log")
    clock_lines = [line for line in log.splitlines() if "clock says 2001-" in line]
    assert clock_lines, where
    assert (f"https://127.0.0.1:{PORT}/manifest.json: certificate valid from 2024-01-01, clock says 2001-01-01; "
            "retrying when the clock is set") in clock_lines[0], where
    assert log.count("content sync: switched to set") == 2, where   # to B, then to C
    assert '"last_error":null' in read("sync-2030.json"), where   # the pass at 2030 took B again (304)
    # Both clock changes ended the hour's wait (forwards to 2030, back from it).
    assert log.count("content sync: the clock was set; checking now") >= 3, where
    assert read("kiosk.rc").strip() == "0", where
    print(clock_lines[0].strip())
