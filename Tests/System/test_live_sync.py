"""A live stream on a synchronised wall's timeline (`sync: epoch:`), on the host, headless: an
MPEG-TS sender over UDP as item 0 with `duration: 4` and a 2 s clip as item 1, so one turn of
the timeline is 6 s. kiosk starts 1 s into a turn, inside the stream's slot.

Before: a stream was left off the timeline whatever its `duration` ("has no fixed length"),
the player joined the clip at every turn and opened the stream only to leave it (a second
open of its UDP port failed: `bind failed`); a join inside the stream's slot sought in it
(`cannot seek`) and skipped what it sent up to the place asked for.

What is checked, from kiosk's log and each flip's CLOCK_REALTIME (`rt`) in the stats file:
- the stream has its slot (the turn is 6 s) and is neither sought nor bound twice;
- every flip of the stream falls in its slot and every flip of the clip in the clip's, to half
  a second (the timeline's own tolerance before it moves a player) at the seams;
- the stream shows in every turn, most of its slot (it is opened ahead, at the seam before it).
"""
from __future__ import annotations

import math
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
from live_outage import free_udp_port, kiosk_running, read_stats, udp_sender
from seam_clips import make_clip

TURN, LIVE_SLOT, EDGE = 6.0, 4.0, 0.5


@pytest.fixture(scope="module", autouse=True)
def built():
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")


def entry_at(rt: float, epoch: float) -> tuple[int, float]:
    """The timeline's entry at realtime `rt` and how far that instant is from the nearest seam."""
    position = (rt - epoch) % TURN
    seam = min(position, abs(position - LIVE_SLOT), TURN - position)
    return (0 if position < LIVE_SLOT else 1), seam


def play_on_the_timeline(tmp_path: Path, sender: bool) -> tuple[float, str, list[dict]]:
    """kiosk on the two-item timeline for 27 s, the stream's sender running or not: the epoch,
    kiosk's log and its flips."""
    clip = make_clip(tmp_path, "clip.mp4", "320x240", 25, 2, sound=False)
    port = free_udp_port()
    # Whole seconds (kiosk.conf's instant), one second before now: the start is in the stream's slot.
    epoch = math.floor(time.time()) - 1
    epoch_text = datetime.fromtimestamp(epoch, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    config = tmp_path / "kiosk.conf"
    config.write_text(f"display: {{output: headless}}\nsync: {{epoch: \"{epoch_text}\"}}\nitems:\n"
                      f"  - {{path: \"udp://127.0.0.1:{port}\", duration: 4}}\n  - {clip.name}\n")
    stats, log = tmp_path / "stats.jsonl", tmp_path / "kiosk.log"
    command = [str(KIOSK), "run", "--config", str(config), "--display", "headless:320x240", "--audio", "none",
               "--stats-file", str(stats), "--state-dir", str(tmp_path), "--control-socket", "none", "--duration", "27"]
    with kiosk_running(command, log, [udp_sender(port)] if sender else []) as player:
        status = player.wait(timeout=300)
    text = log.read_text(errors="replace")
    assert status == 0, text[-3000:]
    assert "one turn 6.000 s" in text and "left out of the timeline" not in text, text[-3000:]
    assert "cannot seek" not in text and "bind failed" not in text, text[-3000:]
    return epoch, text, [r for r in read_stats(stats) if r.get("video") and "rt" in r]


def misplaced_flips(flips: list[dict], epoch: float) -> list[tuple[float, int]]:
    """Flips more than EDGE from a seam that show another item than the timeline's there."""
    misplaced = []
    for record in flips:
        entry, seam = entry_at(record["rt"], epoch)
        if record["item"] != entry and seam > EDGE:
            misplaced.append((round((record["rt"] - epoch) % TURN, 3), record["item"]))
    return misplaced


def test_a_live_stream_plays_its_slot_of_the_timeline(tmp_path):
    epoch, text, flips = play_on_the_timeline(tmp_path, sender=True)
    misplaced = misplaced_flips(flips, epoch)
    print(f"{len(flips)} flips; misplaced (turn offset, item): {misplaced[:10]}")
    assert flips and not misplaced, f"flips outside their item's slot: {misplaced[:10]}"

    # Each whole turn after the first (the stream's first open is not ahead of a seam): its
    # stream's flips span most of the slot.
    first, last = flips[0]["rt"], flips[-1]["rt"]
    turns = range(math.ceil((first - epoch) / TURN) + 1, math.floor((last - epoch) / TURN))
    assert len(turns) >= 2, f"the run covered too few turns: {first - epoch:.1f}..{last - epoch:.1f} s"
    for turn in turns:
        start = epoch + turn * TURN
        live = [r["rt"] for r in flips if r["item"] == 0 and start <= r["rt"] < start + LIVE_SLOT]
        span = live[-1] - live[0] if live else 0
        print(f"turn {turn}: {len(live)} flips of the stream over {span:.2f} s")
        assert span >= LIVE_SLOT - 1.5, f"turn {turn}: the stream showed {span:.2f} s of its {LIVE_SLOT} s slot"


def test_a_stream_that_never_answers_still_gives_way_at_its_slots_end(tmp_path):
    """No sender: the stream's opens wait for data (up to 3 s each) and fail in its slot. The
    clip still plays in its own slot every turn: the stream's slot ends on time (the first turn's
    end was missed by as long as the first open waited, before the item was known live by its
    scheme), and its opens, one after the other, never find the port still bound."""
    epoch, text, flips = play_on_the_timeline(tmp_path, sender=False)
    # The first join is the start's, wherever a slow start put it.
    lines = [line for line in text.splitlines() if "joining the timeline at item" in line][1:]
    joins = [float(line.rsplit("+ ", 1)[1].split(" s")[0]) for line in lines if "at item 1 (clip.mp4)" in line]
    print(f"the clip joined at {joins}")
    assert len(joins) >= 3 and max(joins) < EDGE, f"the clip's joins after the stream's slot: {joins}; {text[-2000:]}"
    misplaced = misplaced_flips(flips, epoch)
    assert flips and not misplaced, f"flips outside their item's slot: {misplaced[:10]}"
    assert "nothing received" in text, text[-2000:]
