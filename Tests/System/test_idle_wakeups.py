"""An idle kiosk sleeps (WakePipe, StoppableThread): `kiosk run` showing a still, with the
config watcher, a watched folder, the control socket (no client), input and the GPIO thread all
up, wakes its threads about twice a second (the schedule's tick and the folder watcher's look
for folders that appear), not ~25 times as when each watcher polled every quarter second and
the main thread every quarter second for the end. A box that shows a poster all day spends
nothing, and every wake-up under the bed's TCG costs about a millisecond of emulated CPU.

Counted from /proc (each thread's voluntary context switches: a thread that blocks and is
woken) over a stretch of seconds with nothing happening, so a slow machine only takes longer.
Threads that end within the stretch are not counted (none does while idle). A SIGTERM still
ends the run with 0: the session's wait, now asleep until the presenter ends, is woken by it."""
import signal
import subprocess
import time
from pathlib import Path

from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
from generated_media import ffmpeg
from kiosk_until import read_stats

# What the idle process may wake in a second: the schedule's tick (1) and the folder look (1),
# with room for a stray event; the polling build woke ~25.
MOST_WAKES_PER_SECOND = 6
WINDOW = 6.0


def thread_switches(pid: int):
    """{thread id: (name, voluntary switches)} of the process now."""
    threads = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            status = (task / "status").read_text()
        except OSError:
            continue   # it ended meanwhile
        voluntary = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("voluntary_ctxt_switches"))
        threads[task.name] = (name, voluntary)
    return threads


def test_an_idle_kiosk_sleeps_and_a_stop_still_ends_it(tmp_path: Path):
    media = tmp_path / "media"
    media.mkdir()
    ffmpeg("-f", "lavfi", "-i", "smptehdbars=size=320x240", "-frames:v", "1", str(media / "poster.png"))
    # A folder of its own: the config watcher is woken by any write in it (and then filters by
    # name), so the stats file and the log go elsewhere.
    (tmp_path / "conf").mkdir()
    config = tmp_path / "conf" / "kiosk.conf"
    config.write_text(f"control: {{socket: {tmp_path / 'control.sock'}}}\n"
                      "playback: {image_duration: 3600}\n"
                      f"items: ['{media}/']\n")
    stats, log = tmp_path / "stats.jsonl", tmp_path / "kiosk.log"
    process = subprocess.Popen([str(KIOSK), "run", "--config", str(config), "--display", "headless:320x240@60:vblank",
                                "--audio", "none", "--stats-file", str(stats), "--duration", "3600"],
                               stderr=log.open("w"))
    try:
        deadline = time.monotonic() + 120
        while not read_stats(stats):
            assert process.poll() is None, f"kiosk exited ({process.returncode}): {log.read_text()[-2000:]}"
            assert time.monotonic() < deadline, f"no first picture: {log.read_text()[-2000:]}"
            time.sleep(0.1)
        time.sleep(2)   # the start's work done (the folder's first look, the socket up)
        before = thread_switches(process.pid)
        start = time.monotonic()
        time.sleep(WINDOW)
        after = thread_switches(process.pid)
        seconds = time.monotonic() - start
        woken = {f"{name} ({tid})": count - before.get(tid, (name, 0))[1] for tid, (name, count) in after.items()}
        woken = {thread: count for thread, count in woken.items() if count > 0}
        rate = sum(woken.values()) / seconds
        assert rate <= MOST_WAKES_PER_SECOND, (
            f"{rate:.1f} wake-ups a second while idle (at most {MOST_WAKES_PER_SECOND}); by thread over {seconds:.1f} s: "
            f"{dict(sorted(woken.items(), key=lambda item: -item[1]))}")
        assert len(read_stats(stats)) >= 1
        assert process.poll() is None, "kiosk ended while idle"

        process.send_signal(signal.SIGTERM)
        # A deadline for a hang, not a speed: a session's wait that missed the presenter's end
        # would sleep for good.
        assert process.wait(timeout=60) == 0, log.read_text()[-2000:]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    text = log.read_text()
    assert "did not stop" not in text, text[-2000:]
