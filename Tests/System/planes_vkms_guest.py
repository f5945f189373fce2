"""Run in the bed's vkms guest by test_planes_vkms.py (`python3 planes_vkms_guest.py KIOSK WORK
PAUSES`): each case of WORK/cases.json played and paused PAUSES times with writeback shots, then
the crossfade and the layers over plane video; what each run showed is kept under WORK for the
host's assertions."""
import json, os, subprocess, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from control_client import ControlClient, wait_until
from paused_shots import frame_flipped, keep_run, pause, pause_and_shoot, played_for, take_shot, terminate
from vkms_guest import stats_records, vkms_card

kiosk, work, pauses = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
card = vkms_card(work)

def stop(proc, d, stats, result):
    """SIGTERM, its exit status, and the run's stats and result kept in `d`."""
    result["exit"] = terminate(proc)
    keep_run(d, stats, result)

for case in json.loads((work / "cases.json").read_text()):
    d = work / case["name"]
    d.mkdir(exist_ok=True)
    sock, stats = "/tmp/kiosk.sock", "/tmp/stats.jsonl"
    for stale in (sock, stats):
        if os.path.exists(stale): os.remove(stale)
    # `kiosk probe FILE` with a kiosk.conf of the same screen, gravity and rotation: what it
    # says the plane does, for the host to hold against what the player then did.
    conf = d / "probe.conf"
    conf.write_text("display:\n  card: %s\n  mode: %dx%d\n  rotation: %d\nplayback:\n  gravity: %s\nitems: [%s]\n"
                    % (card, case["mode"][0], case["mode"][1], case["rotation"], case["gravity"], json.dumps(case["clip"])))
    with open(d / "probe.txt", "w") as out:
        subprocess.call([kiosk, "probe", case["clip"], "--config", str(conf), "--hwdec", "off"],
                        stdout=out, stderr=subprocess.STDOUT, timeout=300)
    log = open(d / "kiosk.log", "w")
    proc = subprocess.Popen([kiosk, "play", "--loop", case["clip"],
                             "--display", "drm:%s::%dx%d" % (card, *case["mode"]),
                             "--gravity", case["gravity"], "--rotation", str(case["rotation"]),
                             "--no-overlay", "--no-input", "--control-socket", sock,
                             "--stats-file", stats, "--log-level", "debug"],   # debug: the clock's stops (a failure quotes them)
                            stdout=log, stderr=subprocess.STDOUT)
    result = {"shots": []}
    try:
        if not wait_until(lambda: os.path.exists(sock) and os.path.getsize(stats) > 0
                          if os.path.exists(stats) else False, timeout=600):
            raise RuntimeError("kiosk never showed a frame")
        client = ControlClient(sock, timeout=120)
        result["shots"] = pause_and_shoot(client, d, pauses, stats, log=d / "kiosk.log")
        client.close()
    except Exception as error:
        result["error"] = repr(error)
    stop(proc, d, stats, result)

# The crossfade: `kiosk run` of its kiosk.conf until the second clip is back on the plane after
# the mix (the first plain flip after it is the CPU's), or its last frame is up (then the host's
# test says whether there was a mix and whether the plane came back), however slowly the guest runs: CI's loaded one had not
# finished the mix after a fixed 7 s, and a fixed second after it was not enough for a stalled
# guest. `kiosk run` keeps the last picture up after a `loop: none` playlist; SIGTERM ends it.
def past_the_mix(path):
    records = stats_records(path)
    mixed = [r for r in records if "mix" in r]
    if any(r["item"] == 1 and r["pts"] >= SECOND_CLIP_LAST_FRAME for r in records):
        return True   # its end (with a mix or without: the host's test says which)
    after = [r for r in records if r["item"] == 1 and "mix" not in r and mixed and r["t"] > mixed[-1]["t"]]
    return bool(after) and after[-1].get("scanout") == "plane"

SECOND_CLIP_LAST_FRAME = 5.96   # short-b.mp4: 6 s at 25 fps

d = work / "crossfade"
d.mkdir(exist_ok=True)
(d / "kiosk.conf").write_text(open(work / "crossfade.conf").read())
with open(d / "kiosk.log", "w") as log:
    proc = subprocess.Popen([kiosk, "run", "--config", str(d / "kiosk.conf"), "--display", "drm:%s::640x480" % card,
                             "--audio", "none", "--stats-file", "/tmp/crossfade.jsonl", "--duration", "900",
                             "--log-level", "info"], stdout=log, stderr=subprocess.STDOUT, cwd=str(work))
    wait_until(lambda: past_the_mix("/tmp/crossfade.jsonl") or proc.poll() is not None, timeout=600, interval=0.2)
    code = terminate(proc)
(d / "stats.jsonl").write_bytes(open("/tmp/crossfade.jsonl", "rb").read())
(d / "exit").write_text(str(code))

# The layers over plane video: `kiosk run` with a text box, a clock and a ticker, paused a while
# in; two writeback shots with ticker refreshes between them (the stats file grows).
d, sock, stats = work / "layers", "/tmp/layers.sock", "/tmp/layers.jsonl"
d.mkdir(exist_ok=True)
(d / "kiosk.conf").write_text(open(work / "layers.conf").read())
result = {}
with open(d / "kiosk.log", "w") as log:
    proc = subprocess.Popen([kiosk, "run", "--config", str(d / "kiosk.conf"), "--display", "drm:%s::640x480" % card,
                             "--audio", "none", "--stats-file", stats, "--control-socket", sock, "--log-level", "info"],
                            stdout=log, stderr=subprocess.STDOUT, cwd=str(work))
    try:
        if not wait_until(lambda: os.path.exists(sock) and os.path.exists(stats) and os.path.getsize(stats) > 0, timeout=600):
            raise RuntimeError("kiosk never showed a frame")
        client = ControlClient(sock, timeout=120)
        if not wait_until(played_for(client, 1.0), timeout=600, interval=0.1):
            raise RuntimeError("the clock did not move 1 s in 600 s")
        pause(client)
        result["time"] = client.ok("get", "time")
        # The frame that time names may go up a while after the pause on a busy guest (decoded
        # late): the ticker's refreshes go on meanwhile, so counting lines is not enough (CI, a
        # guest stalled 5 s: shots of the frame two before the paused one).
        if not wait_until(lambda: frame_flipped(stats, result["time"], 0.04), timeout=120, interval=0.1):
            raise RuntimeError("paused at %s s, the frame that time names never went up" % result["time"])
        stats_lines = lambda: open(stats).read().count("\n")  # noqa: E731
        # Three shots: one may fall between two passes of the line (off the strip: CI stop 59).
        for n in range(3):
            lines = stats_lines()
            wait_until(lambda: stats_lines() >= lines + 5, timeout=600, interval=0.1)
            before = stats_lines()
            # A read-back later than kiosk's wait is composed by kiosk (another conversion than
            # the driver's: 38 dB from the other shot, CI): taken again.
            late, unanswered = take_shot(client, d / ("shot-%d.png" % n), d / "kiosk.log")
            # The stats lines around the shot: the ticker's positions it may show, up to the
            # answer. kiosk writes them from a thread of its own, so a position up before the
            # answer may be written after it: counted once a later line is there (the stats'
            # `t` is this clock, CLOCK_MONOTONIC; the ticker refreshes on while paused).
            answered = time.monotonic()
            wait_until(lambda: any(r["t"] > answered for r in stats_records(stats)), timeout=600, interval=0.1)
            records = stats_records(stats)
            upto = next((i for i, r in enumerate(records) if r["t"] > answered), len(records))
            result.setdefault("shot_lines", []).append([before, max(upto, before)])
            result["late_readbacks"] = result.get("late_readbacks", 0) + late
            result["unanswered"] = result.get("unanswered", 0) + unanswered
        result["time_after"] = client.ok("get", "time")
        client.close()
    except Exception as error:
        result["error"] = repr(error)
    stop(proc, d, stats, result)
