"""Layers over every item (issue 22, kiosk.conf `layers`), on the host, headless, one `kiosk run`:

- a half-transparent red logo (PNG with alpha) at the top left, 25 % of the screen wide: over
  the blue clip each of its pixels is red at 128/255 over blue, and its size is 80x40 on 320x240;
- a text line at the bottom on an opaque black box: white glyph pixels inside the box, the box
  centred along the bottom edge 4 px up;
- a clock with seconds at the top right: while a still image plays (no new frame comes), the
  picture is drawn again when the clock's text changes (stats lines `"event":"layers"`, about
  one a second), and every flip carries the layers;
- a layer whose picture is garbage: one error line naming it, the other layers and playback go on.

What the screen showed comes from `--snapshots` taken at every flip."""
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generated_media import ffmpeg  # noqa: E402
from screen_geometry import pixel, rgb_rows  # noqa: E402
from kiosk_until import run_until, since_first  # noqa: E402
from run_delay import RunDelaySampler  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
SCREEN = (320, 240)
CONFIG = """input: {enabled: false}
playback: {loop: none, gravity: fill}
items:
  - blue.mp4
  - {path: gray.png, duration: 3.5}
layers:
  - image: {path: logo.png, width: 25%, margin: 0, position: top-left}
  - text: {text: "HELLO", size: 40px, color: "#ffffff", background: "#000000", margin: 4, position: bottom}
  - clock: {format: "HH:mm:ss", timezone: UTC, size: 20px, position: top-right, background: "#000000"}
  - image: {path: broken.png, position: center, name: broken}
"""


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    directory = tmp_path_factory.mktemp("layers")
    ffmpeg("-f", "lavfi", "-i", "color=c=blue:s=160x120:r=25:d=2", "-c:v", "libx264", "-preset", "ultrafast",
           "-pix_fmt", "yuv420p", str(directory / "blue.mp4"))
    ffmpeg("-f", "lavfi", "-i", "color=c=0x808080:s=160x120", "-frames:v", "1", str(directory / "gray.png"))
    # Red at alpha 128, 40x20: drawn 80x40 (25 % of 320, height in proportion).
    ffmpeg("-f", "lavfi", "-i", "color=c=red:s=40x20,format=rgba,colorchannelmixer=aa=0.50196",
           "-frames:v", "1", str(directory / "logo.png"))
    (directory / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"not really a picture" * 20)
    conf, stats, shots = directory / "kiosk.conf", directory / "stats.jsonl", directory / "shots"
    conf.write_text(CONFIG)
    # Until the 3.5 s still has played out (then nothing more flips: loop none).
    code, records, log = run_until([str(KIOSK), "run", "--config", str(conf), "--display", f"headless:{SCREEN[0]}x{SCREEN[1]}",
                                    "--audio", "none", "--stats-file", str(stats), "--snapshots", str(shots),
                                    "--snapshot-every", "0.001"], stats,
                                   lambda records, _: since_first(records, 1, 3.8), directory / "kiosk.log")
    assert code == 0, log
    return records, sorted(shots.glob("shot-*.png")), log


def close(a, b, tolerance=3):
    return all(abs(p - q) <= tolerance for p, q in zip(a, b))


def first_shot_of(played, item):
    """A snapshot taken while `item` was on screen (snapshots are named by their frame)."""
    records, shots, _ = played
    for shot in shots:
        _, _, rows = rgb_rows(shot)
        centre = pixel(rows, SCREEN[0] // 2, SCREEN[1] // 2)
        if item == 0 and close(centre, (0, 0, 255), 40):
            return rows
        if item == 1 and close(centre, (128, 128, 128), 12):
            return rows
    pytest.fail(f"no snapshot of item {item} among {len(shots)}")


def test_the_logo_is_blended_by_its_alpha_at_its_size(played):
    rows = first_shot_of(played, 0)
    inside = [pixel(rows, x, y) for x in (0, 40, 79) for y in (0, 20, 39)]
    assert all(close(p, (128, 0, 127), 6) for p in inside), inside
    outside = [pixel(rows, 80, 10), pixel(rows, 10, 40)]
    assert all(close(p, (0, 0, 255), 40) for p in outside), f"the logo is not 80x40: {outside}"


def test_the_text_sits_on_its_box_at_the_bottom(played):
    rows = first_shot_of(played, 0)
    # The box: 40 px text + 10 px padding each side = 60 high, 4 px up from the bottom.
    box_rows = range(SCREEN[1] - 4 - 60, SCREEN[1] - 4)
    line = [pixel(rows, x, y) for y in box_rows for x in range(SCREEN[0])]
    white = sum(1 for p in line if close(p, (255, 255, 255), 30))
    black = sum(1 for p in line if close(p, (0, 0, 0), 30))
    assert white > 200, f"only {white} white text pixels in the box"
    assert black > 2000, f"only {black} black box pixels"
    assert close(pixel(rows, SCREEN[0] // 2, SCREEN[1] - 2), (0, 0, 255), 40), "the box is not 4 px up"
    assert close(pixel(rows, 2, SCREEN[1] - 30), (0, 0, 255), 40), "the box is not centred: it reaches the left edge"


def test_on_a_still_the_clock_is_drawn_again_when_its_text_changes(played):
    records, _, _ = played
    still = [r for r in records if r["item"] == 1]
    redraws = [r for r in still if r.get("event") == "layers"]
    span = still[-1]["t"] - still[0]["t"] if still else 0
    print(f"still: {len(still)} flips over {span:.2f} s, {len(redraws)} for the clock")
    assert span > 2.5, f"the still played {span:.2f} s"
    # One a second ("HH:mm:ss"), none more often than the text changes.
    assert int(span) - 1 <= len(redraws) <= int(span) + 2, (len(redraws), span)
    gaps = [b["t"] - a["t"] for a, b in zip(redraws, redraws[1:])]
    assert all(g > 0.5 for g in gaps), gaps


def test_a_broken_picture_is_one_line_and_the_rest_goes_on(played):
    records, _, log = played
    lines = [l for l in log.splitlines() if "broken.png" in l]
    assert len(lines) == 1 and "left out" in lines[0], log
    assert {r["item"] for r in records} == {0, 1}


TICKER_CONFIG = """input: {enabled: false}
playback: {loop: playlist}
items:
  - clip.mp4
layers:
  - ticker: {text: "Breaking: a ticker runs over the video", speed: 120, size: 30px, background: "#000000a0"}
"""
REFRESH = 1 / 60


@pytest.fixture(scope="module")
def ticked(tmp_path_factory):
    """A 25 fps clip with a ticker on a 60 Hz vblank grid, and the same clip without it; each
    run with its threads' run delay sampled beside it (whose frame a late flip cost)."""
    directory = tmp_path_factory.mktemp("ticker")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=4", "-c:v", "libx264", "-preset", "ultrafast",
           "-pix_fmt", "yuv420p", str(directory / "clip.mp4"))
    runs, samplers = {}, {}
    for name, config in (("ticker", TICKER_CONFIG), ("alone", TICKER_CONFIG.split("layers:")[0])):
        conf, stats = directory / f"{name}.conf", directory / f"{name}.jsonl"
        conf.write_text(config)

        def sample(process, name=name):
            samplers[name] = RunDelaySampler(process.pid)
        # Until 90 of the clip's frames are up (the comparison takes the first 70 or more).
        code, runs[name], log = run_until([str(KIOSK), "run", "--config", str(conf), "--display", "headless:640x360@60:vblank",
                                           "--audio", "none", "--stats-file", str(stats)], stats,
                                          lambda records, _: sum(1 for r in records if r.get("event") is None) >= 90,
                                          directory / f"{name}.log", started=sample)
        samplers[name].stop()
        assert code == 0, log
    runs["samplers"] = samplers
    return runs


def test_the_ticker_takes_every_refresh_and_moves_on_the_grid(ticked):
    records = ticked["ticker"]
    assert all("ticker" in r for r in records), "a flip without the ticker's position"
    gaps = [round((b["t"] - a["t"]) / REFRESH) for a, b in zip(records, records[1:])]
    one = sum(1 for g in gaps if g == 1)
    print(f"ticker: {len(records)} flips, {one} a refresh after the one before, {len(gaps) - one} not")
    assert one >= 0.95 * len(gaps), f"flips not at every refresh: {sorted(set(gaps))}"
    # 120 px/s at 60 Hz: 2 px a refresh, whole pixels, placed for the flip the presenter
    # foresees; a refresh missed is two steps. From the second flip: the first has no drawing
    # time measured yet to foresee its flip by. A flip whose drawing ran past the refresh it
    # was placed for (a video frame's heavier draw on a busy host: CI's came a refresh late with
    # one step) is placed again for the flip it reaches (FramePresenter.placeTickerAgainIfLate);
    # where that second placing runs late too it lands a step behind and the flip after it
    # catches up, as the gap check above allows a few late flips; never further off than a step.
    # Further off (CI: a flip three refreshes after the one before with one step) only where
    # kiosk was kept from a CPU for a refresh or more between the two flips (run_delay.py): the
    # machine held the flip back after its place was drawn.
    late = []
    for (a, b), refreshes in list(zip(zip(records, records[1:]), gaps))[1:]:
        moved = a["ticker"] - b["ticker"]
        if b["ticker"] > a["ticker"]:
            continue   # it came round again
        if moved not in (2 * (refreshes - 1), 2 * refreshes, 2 * (refreshes + 1)):
            waited = ticked["samplers"]["ticker"].waited(a["t"], b["t"])
            machine = ticked["samplers"]["ticker"].held_back(a["t"], b["t"], REFRESH)
            around = [{k: r.get(k) for k in ("t", "pts", "ticker", "dropped", "event")} for r in records[max(0, records.index(a) - 4):records.index(b) + 3]]
            assert machine and 0 < moved < 2 * refreshes, (around, f"kiosk's threads waited {waited} s for a CPU")
        if moved != 2 * refreshes:
            late.append((a, b))
    assert len(late) <= max(1, 0.05 * len(gaps)), late


def test_the_video_under_the_ticker_plays_as_without_it(ticked):
    """The same frames of the clip in the same order with the ticker as without it. A frame the
    pacer dropped (its flip came too late) is missing from its run: the ticker's run may miss
    at most one more of the first frames than the run without it, not counting frames whose
    flip came late while kiosk's threads waited for a CPU (the machine's, sampled beside it)."""
    fps = 25

    def video(records):
        return [r for r in records if r.get("event") is None]

    def missing(name, frames):
        """The clip's frames the run skipped, each as (pts, the machine's: whether kiosk's threads
        waited for a CPU for half a frame or more between the flips around it)."""
        skipped, last = [], 4 - 1 / fps
        for a, b in zip(frames, frames[1:]):
            for frame in (a, b):
                assert abs(frame["pts"] * fps - round(frame["pts"] * fps)) < 0.05, f"{name}: off the clip's frames: {frame}"
            if b["pts"] > a["pts"]:
                between = [a["pts"] + k / fps for k in range(1, round((b["pts"] - a["pts"]) * fps))]
            else:
                # The loop came round: the clip's frames after a's to its end, and those before b's
                # (a frame shown again counts its whole loop as missing).
                between = [a["pts"] + k / fps for k in range(1, round((last - a["pts"]) * fps) + 1)]
                between += [k / fps for k in range(round(b["pts"] * fps))]
            machine = ticked["samplers"][name].held_back(a["t"], b["t"], 0.5 / fps)
            skipped += [(round(pts, 3), machine) for pts in between]
        return skipped

    with_ticker, alone = video(ticked["ticker"]), video(ticked["alone"])
    common = min(len(with_ticker), len(alone)) - 2
    assert common > 70, f"video frames: {len(with_ticker)} with the ticker, {len(alone)} alone"
    ticker_missed, alone_missed = missing("ticker", with_ticker[:common]), missing("alone", alone[:common])
    print(f"video frames: {len(with_ticker)} with the ticker, {len(alone)} alone; missing in the first {common}: "
          f"{ticker_missed} with the ticker, {alone_missed} alone (pts, the machine's)")
    ours = [pts for pts, machine in ticker_missed if not machine]
    assert len(ours) <= len(alone_missed) + 1, (ticker_missed, alone_missed)


def test_kiosk_ctl_hides_a_layer_and_changes_a_text_on_a_still(tmp_path):
    """`kiosk ctl layer hide|text|show NAME`: on a still (no new frame comes) the picture is
    drawn again at once with the change; an unknown name is refused in the log, play goes on."""
    ffmpeg("-f", "lavfi", "-i", "color=c=0x808080:s=160x120", "-frames:v", "1", str(tmp_path / "gray.png"))
    socket = tmp_path / "kiosk.sock"
    (tmp_path / "kiosk.conf").write_text(f"""input: {{enabled: false}}
playback: {{loop: playlist}}
control: {{socket: {socket}}}
items:
  - {{path: gray.png, duration: 30}}
layers:
  - text: {{text: "HELLO", name: hello, size: 40px, color: "#ffffff", background: "#000000", position: bottom}}
""")
    stats, shots = tmp_path / "stats.jsonl", tmp_path / "shots"
    kiosk = subprocess.Popen([str(KIOSK), "run", "--config", str(tmp_path / "kiosk.conf"), "--display", "headless:320x240",
                              "--audio", "none", "--stats-file", str(stats), "--snapshots", str(shots),
                              "--snapshot-every", "0.001", "--duration", "300"],
                             stderr=(tmp_path / "kiosk.log").open("w"), text=True)
    try:
        import time
        deadline = time.monotonic() + 60
        # The socket is there and the first picture was saved (the stats line comes just before it).
        while not (socket.exists() and list(shots.glob("shot-*.png"))) and time.monotonic() < deadline:
            time.sleep(0.05)

        def ctl(*words):
            return subprocess.run([str(KIOSK), "ctl", "--socket", str(socket), *words], capture_output=True, text=True, timeout=30)

        def box_pixel():
            # The newest snapshot's pixel in the text box's lower padding (5 px margin, 10 px padding).
            # (A snapshot being written may not read whole yet: the one before it is taken then.)
            for shot in reversed(sorted(shots.glob("shot-*.png"))):
                try:
                    _, _, rows = rgb_rows(shot)
                    return pixel(rows, SCREEN[0] // 2, SCREEN[1] - 12)
                except Exception:
                    continue
            return None

        def wait_for(what, predicate):
            end = time.monotonic() + 20
            while time.monotonic() < end:
                if predicate():
                    return
                time.sleep(0.05)
            pytest.fail(f"{what}: box pixel {box_pixel()}")

        wait_for("the box shows", lambda: box_pixel() is not None and close(box_pixel(), (0, 0, 0), 10))
        assert ctl("layer", "hide", "hello").returncode == 0
        wait_for("hidden", lambda: close(box_pixel(), (128, 128, 128), 10))
        assert ctl("layer", "show", "hello").returncode == 0
        wait_for("shown again", lambda: close(box_pixel(), (0, 0, 0), 10))
        before = sorted(shots.glob("shot-*.png"))[-1]
        assert ctl("layer", "text", "hello", "A MUCH LONGER LINE").returncode == 0
        wait_for("a new text", lambda: sorted(shots.glob("shot-*.png"))[-1] != before)
        refused = ctl("layer", "hide", "nosuch")   # refused by the engine, which the reply says
        assert refused.returncode == 1, refused
        assert "layer: no such layer; kiosk.conf names hello" in refused.stderr, refused.stderr
        wait_for("the refusal logged", lambda: "layer nosuch" in (tmp_path / "kiosk.log").read_text())
    finally:
        # Stopped when the checks are done, however long they took (a slow machine is no failure).
        kiosk.terminate()
        kiosk.wait(timeout=60)
    err = (tmp_path / "kiosk.log").read_text()
    assert kiosk.returncode == 0, err
    refused = [line for line in err.splitlines() if "layer nosuch" in line]
    assert len(refused) == 1 and "no such layer" in refused[0], err
    events = [json.loads(line).get("event") for line in stats.read_text().splitlines()]
    assert events.count("layers") >= 3, events


def test_the_video_keeps_to_its_region_and_a_layer_fills_the_rest(tmp_path):
    """`playback.region: [0, 0, 75%, 100%]` on 320x240: a 4:3 blue clip filled into the left
    240x240 (cropped), black to its right where a clock layer sits."""
    ffmpeg("-f", "lavfi", "-i", "color=c=blue:s=160x120:r=25:d=2", "-c:v", "libx264", "-preset", "ultrafast",
           "-pix_fmt", "yuv420p", str(tmp_path / "blue.mp4"))
    (tmp_path / "kiosk.conf").write_text("""input: {enabled: false}
playback: {loop: none, gravity: fill, region: [0, 0, 75%, 100%]}
items: [blue.mp4]
layers:
  - clock: {format: "HH:mm", position: right, size: 20px, margin: 4}
""")
    shots, stats = tmp_path / "shots", tmp_path / "stats.jsonl"
    # Until the clip has played a second (its snapshots every half second: the clock is drawn).
    code, _, log = run_until([str(KIOSK), "run", "--config", str(tmp_path / "kiosk.conf"), "--display", "headless:320x240",
                              "--audio", "none", "--stats-file", str(stats), "--snapshots", str(shots),
                              "--snapshot-every", "0.5"], stats,
                             lambda records, _: any(r["pts"] >= 1.0 for r in records), tmp_path / "kiosk.log")
    assert code == 0, log
    _, _, rows = rgb_rows(sorted(shots.glob("shot-*.png"))[-2])   # the newest may be half written
    assert all(close(pixel(rows, x, y), (0, 0, 255), 40) for x in (0, 120, 239) for y in (0, 120, 239))
    assert all(close(pixel(rows, x, y), (0, 0, 0), 3) for x in (240, 250, 319) for y in (0, 239))
    clock_band = [pixel(rows, x, y) for x in range(250, 320) for y in range(105, 135)]
    assert sum(1 for p in clock_band if p[0] > 128) > 20, "no clock text to the right of the video"


RSS = """<?xml version="1.0"?><rss version="2.0"><channel><title>Lobby news</title>
<item><title>Opening hours &amp; more</title></item><item><title><![CDATA[Cafe on floor 2]]></title></item>
<item><title>Lift B out of order</title></item></channel></rss>"""


def test_a_ticker_runs_a_feeds_titles_and_a_bad_feed_is_one_line(tmp_path):
    """A ticker fed by an RSS feed on 127.0.0.1 (http_media_server.py): its three titles are
    read (one log line) and text runs in the strip; a second ticker whose feed answers an HTML
    page is one error line and stays empty, and playback goes on."""
    from content_sync_support import Server
    (tmp_path / "news.rss").write_text(RSS)
    (tmp_path / "portal.html").write_text("<html><body>Please log in</body></html>")
    ffmpeg("-f", "lavfi", "-i", "color=c=blue:s=160x120:r=25:d=2", "-c:v", "libx264", "-preset", "ultrafast",
           "-pix_fmt", "yuv420p", str(tmp_path / "blue.mp4"))
    with Server(tmp_path, "--etag", "--html", ".html") as server:
        (tmp_path / "kiosk.conf").write_text(f"""input: {{enabled: false}}
playback: {{loop: playlist}}
items: [blue.mp4]
layers:
  - ticker: {{feed: "{server.url('news.rss')}", speed: 200, size: 30px, position: bottom, background: "#000000"}}
  - ticker: {{feed: "{server.url('portal.html')}", speed: 200, size: 30px, position: top, background: "#000000"}}
""")
        shots, stats = tmp_path / "shots", tmp_path / "stats.jsonl"
        # Until both feeds were answered and the line has run 2 s since (snapshots every 0.25 s).
        feeds_done_at = []

        def done(records, log):
            if not feeds_done_at and "news.rss" in log and "portal.html" in log:
                feeds_done_at.append(time.monotonic())
            return bool(feeds_done_at) and time.monotonic() - feeds_done_at[0] >= 2
        code, _, log = run_until([str(KIOSK), "run", "--config", str(tmp_path / "kiosk.conf"),
                                  "--display", "headless:320x240@60:vblank", "--audio", "none", "--stats-file", str(stats),
                                  "--snapshots", str(shots), "--snapshot-every", "0.25"], stats, done, tmp_path / "kiosk.log")
    assert code == 0, log
    read = [line for line in log.splitlines() if "news.rss" in line]
    assert len(read) == 1 and "3 title(s)" in read[0], log
    portal = [line for line in log.splitlines() if "portal.html" in line]
    assert len(portal) == 1 and "not an RSS or Atom feed" in portal[0], log

    def strip_text(rows, y0, y1):
        return sum(1 for y in range(y0, y1) for x in range(0, SCREEN[0], 2) if pixel(rows, x, y)[0] > 160)
    last = [rgb_rows(path)[2] for path in sorted(shots.glob("shot-*.png"))[-5:-1]]   # the newest may be half written
    assert any(strip_text(rows, SCREEN[1] - 50, SCREEN[1] - 5) > 30 for rows in last), "no feed text in the bottom strip"
    assert all(strip_text(rows, 5, 50) == 0 for rows in last), "the HTML feed's strip is not empty"


def readable_shot(shots):
    """The first snapshot's rows once it is whole (a still flips once: one snapshot)."""
    for shot in sorted(shots.glob("shot-*.png"))[:1]:
        try:
            return rgb_rows(shot)[2]
        except Exception:
            return None
    return None


def test_an_emoji_in_a_text_layer_keeps_its_colours(tmp_path):
    """A text layer with U+1F44D (THUMBS UP SIGN, which DejaVu Sans lacks: Noto Color Emoji, a
    bitmap font, draws it) in white over a grey still: yellow pixels in the text's box, not white."""
    ffmpeg("-f", "lavfi", "-i", "color=c=0x808080:s=160x120", "-frames:v", "1", str(tmp_path / "gray.png"))
    (tmp_path / "kiosk.conf").write_text("""input: {enabled: false}
playback: {loop: none}
items: [{path: gray.png, duration: 30}]
layers:
  - text: {text: "OK \U0001F44D", size: 48px, color: "#ffffff", background: "#000000", position: center}
""")
    shots, stats = tmp_path / "shots", tmp_path / "stats.jsonl"
    code, _, log = run_until([str(KIOSK), "run", "--config", str(tmp_path / "kiosk.conf"), "--display", "headless:320x240",
                              "--audio", "none", "--stats-file", str(stats), "--snapshots", str(shots),
                              "--snapshot-every", "0.001"], stats,
                             lambda records, _: readable_shot(shots) is not None, tmp_path / "kiosk.log")
    assert code == 0, log
    rows = readable_shot(shots)
    box = [pixel(rows, x, y) for x in range(SCREEN[0]) for y in range(80, 160)]
    yellow = sum(1 for r, g, b in box if r > 200 and g > 140 and b < 110)
    white = sum(1 for p in box if close(p, (255, 255, 255), 30))
    print(f"emoji: {yellow} yellow pixels, {white} white")
    assert yellow > 200 and white > 100, log

