"""The guest side of "a paused player shows the frame its time names" (the vkms plane tests):
play a while, pause through the control socket, read `get time`, wait for the flip of the frame
that time names (the stats file says it: on a busy guest that frame may be decoded and flipped a
while after the pause), then take the screenshot. Also the end of such a run: kiosk stopped, its
stats and result kept in the case's directory."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

from control_client import wait_until
from vkms_guest import stats_records


def frame_flipped(stats: str, at: float, period: float) -> bool:
    """Whether the stats file's latest video flip, the picture on screen, is the frame at `at`
    (pts in (at - period, at]). Not any flip of it: a `loop: item` clip paused just after a seam
    reads 0.0 s while its first frame of the new loop is still to go up, and the same frame's
    flip in the first loop matched, so the shot took the old loop's last frame (20 dB, in CI)."""
    video = [r for r in stats_records(stats) if r.get("video")]
    return bool(video) and at - period - 0.001 < video[-1]["pts"] <= at + 1e-6


def played_for(client, seconds: float):
    """A check that is true once the item's clock has moved `seconds` since its first call,
    counted across loops: the tests play `loop: item` clips of 2-6 s, so a start near the end
    never sees `time > start + seconds` (it wraps to 0 first; that wait once spent its whole
    10-minute timeout in every CI run that paused late in the clip)."""
    state = {"last": client.ok("get", "time"), "moved": 0.0}

    def check() -> bool:
        now = client.ok("get", "time")
        # A loop back to the start: the part played after the wrap is `now` itself.
        state["moved"] += now - state["last"] if now >= state["last"] else now
        state["last"] = now
        return state["moved"] >= seconds
    return check


# What kiosk logs when the writeback picture came later than its wait (5 s): that shot is
# composed by kiosk instead, and the next asks the driver again.
LATE_READBACK = "reading the display back failed"
LATE_TRIES = 3
# What a screenshot request answers when the presenter was busy longer than kiosk waits for it
# (10 s): a starved guest's vkms composed a read-back after kiosk's wait, and the commit after
# it waited for that (CI, 2026-11-29). The shot is asked for again; its late read-back may be
# logged at any time after, so each allows one more late read-back. A request given up is not
# read back by kiosk when the presenter comes to it (CI: 10-20 s a read-back on a starved guest,
# four in a row, when each queued request was still read back).
UNANSWERED = "the player did not answer"
UNANSWERED_TRIES = 6


def pause_and_shoot(client, directory: Path, pauses: int, stats: str, period: float = 0.04,
                    log: Path | None = None) -> list[dict]:
    """`pauses` times: play on ~0.7 s (however slowly the guest runs), pause, shoot. Each shot's
    `time`, the `time_after` it (the clock must not move while paused) and its path. With `log`
    (kiosk's): a shot whose read-back came late (LATE_READBACK: a starved guest's vkms composed it
    after kiosk's wait, CI once) is taken again, up to LATE_TRIES times, and counted in the shot's
    `late_readbacks`; the tests judge the picture read back and say how many came late. A request
    kiosk did not answer in time (UNANSWERED) is asked again, up to UNANSWERED_TRIES times, and
    counted in `unanswered`."""
    shots = []
    for n in range(pauses):
        client.asked("play")
        assert wait_until(played_for(client, 0.7 + 0.13 * n), timeout=600, interval=0.1), \
            f"pause {n}: the clock did not move 0.7 s in 600 s"
        pause(client)
        at = client.ok("get", "time")
        assert wait_until(lambda: frame_flipped(stats, at, period), timeout=120, interval=0.1), \
            f"paused at {at} s, the frame that time names never went up"
        shot = directory / ("shot-%d.png" % n)
        late, unanswered = take_shot(client, shot, log)
        shots.append({"time": at, "time_after": client.ok("get", "time"), "shot": str(shot), "late_readbacks": late,
                      "unanswered": unanswered})
    return shots


def pause(client) -> None:
    """`pause`, and its effect waited for: a starved guest's presenter may take it after the
    socket's 5 s (the reply says it waits its turn)."""
    client.asked("pause")
    assert wait_until(lambda: client.ok("get", "time_control_status") == "paused", timeout=600, interval=0.1), \
        "pause was not carried out in 600 s"


def take_shot(client, shot: Path, log: Path | None) -> tuple[int, int]:
    """`screenshot` to `shot`, asked again while kiosk's `log` says the read-back came late
    (LATE_READBACK: that one was composed by kiosk) or kiosk did not answer (UNANSWERED): how
    many came late, and how many were not answered."""
    late = unanswered = 0
    while True:
        said = late_readbacks(log)
        reply = client.command("screenshot", str(shot))
        if reply["error"] != "success":
            assert UNANSWERED in reply["error"] and unanswered < UNANSWERED_TRIES, (str(shot), reply)
            unanswered += 1
            continue
        if late_readbacks(log) == said or late == LATE_TRIES + unanswered:
            return late, unanswered
        late += 1


def late_readbacks(log: Path | None) -> int:
    """How many times kiosk's log says a read-back came late (0 without a log)."""
    return log.read_text(errors="replace").count(LATE_READBACK) if log and log.exists() else 0


def terminate(proc: subprocess.Popen) -> int | str:
    """SIGTERM, then its exit status ("killed" when it did not end within 120 s)."""
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        return "killed"


def keep_run(directory: Path, stats: str, result: dict) -> None:
    """The run's stats file (from the guest's /tmp) and its result, kept in `directory`."""
    if os.path.exists(stats):
        (directory / "stats.jsonl").write_bytes(open(stats, "rb").read())
    (directory / "result.json").write_text(json.dumps(result))
