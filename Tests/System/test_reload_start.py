"""What kiosk says of kiosk.conf at the start and at a reload (issue 5's live reload, on the
host, headless; test_reload.py edits a running file): a reload under a schedule says only what
changed; a missing file and an empty folder are said once, not again at the folder watcher's
first look; a kiosk.conf broken while kiosk was stopped plays its last good copy; `kiosk check`'s
warnings reach the journal once."""
import os
import signal
import subprocess
import time

from built_kiosk import KIOSK
from test_reload import make_clip, wait_for


def test_a_reload_under_a_schedule_says_only_what_changed(tmp_path):
    """The schedule's first pick is not the default playlist: the first reload compared the two
    and said "items (the folders' files changed)" and sent the schedule's display power again."""
    for name in ("a.mp4", "b.mp4"):
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2",
                        "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(tmp_path / name)], check=True)
    conf, socket, log = tmp_path / "kiosk.conf", tmp_path / "ctl.sock", tmp_path / "kiosk.log"

    def text(volume):
        return (f"audio: {{device: none, volume: {volume}}}\ninput: {{enabled: false}}\ncontrol: {{socket: {socket}}}\n"
                f"playlists:\n  default: [{tmp_path / 'a.mp4'}]\n  other: [{tmp_path / 'b.mp4'}]\n"
                "schedule:\n  entries:\n    - {name: allday, playlist: other, days: daily, from: '00:00', to: '00:00'}\n")

    def reloads(count, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [line for line in log.read_text().splitlines() if "reloaded:" in line]
            if len(found) >= count:
                return found
            assert process.poll() is None, log.read_text()
            time.sleep(0.1)
        raise AssertionError(f"{count} reloads expected: " + log.read_text())
    conf.write_text(text(80))
    with open(log, "w") as output:
        process = subprocess.Popen([str(KIOSK), "run", "--config", str(conf), "--display", "headless:160x120",
                                    "--state-dir", str(tmp_path / "state"), "--duration", "60"], stdout=output, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 20
        while True:   # the schedule's playlist plays: the reloader is watching the file
            title = subprocess.run([str(KIOSK), "ctl", "--socket", str(socket), "get", "title"], capture_output=True, text=True)
            if title.stdout.strip() == "b.mp4":
                break
            assert time.monotonic() < deadline and process.poll() is None, (title, log.read_text())
            time.sleep(0.1)
        conf.write_text(text(70))
        reloads(1)
        conf.write_text(text(80))
        found = reloads(2)
    finally:
        process.terminate()
        process.wait(timeout=20)
    assert all(line.endswith("reloaded: audio volume") for line in found), found
    assert (tmp_path / "state").is_dir(), "a --state-dir not there yet is made"
    assert "cannot create" not in log.read_text(), log.read_text()
    assert "display power on" not in log.read_text(), log.read_text()


def test_the_starts_playlist_problems_are_said_once(tmp_path):
    """A missing file and an empty folder were each logged twice at the start: once by the start's
    expansion, again by the folder watcher's first look. Said once, until something changes: a
    clip arriving in a watched folder is a look, and it says only what is new."""
    make_clip(tmp_path / "a.mp4", 1.0)
    (tmp_path / "empty").mkdir()
    (tmp_path / "watched").mkdir()
    socket, log = tmp_path / "ctl.sock", tmp_path / "kiosk.log"
    conf = tmp_path / "kiosk.conf"
    conf.write_text(f"audio: {{device: none}}\ninput: {{enabled: false}}\ncontrol: {{socket: {socket}}}\n"
                    f"items:\n  - {tmp_path / 'a.mp4'}\n  - {tmp_path / 'missing.mp4'}\n  - {tmp_path / 'empty'}/\n"
                    f"  - {tmp_path / 'watched'}/\n")
    with open(log, "w") as output:
        process = subprocess.Popen([str(KIOSK), "run", "--config", str(conf), "--display", "headless:160x120",
                                    "--state-dir", str(tmp_path / "state"), "--duration", "60"], stdout=output, stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: "watched folders" in log.read_text() or socket.exists(), 30, "the control socket")
        make_clip(tmp_path / "b.mp4", 1.0)
        os.rename(tmp_path / "b.mp4", tmp_path / "watched" / "b.mp4")
        wait_for(lambda: "watched folders:" in log.read_text(), 60, "the folder watcher's look at the new clip")
    finally:
        process.terminate()
        process.wait(timeout=20)
    text = log.read_text()
    assert text.count("missing.mp4' does not exist") == 1, text
    assert text.count("empty' holds no media files") == 1, text
    # The watched folder was empty at the start (said), and is not after the clip came.
    assert text.count("watched' holds no media files") == 1, text


def test_a_kiosk_conf_broken_while_stopped_plays_its_last_good_copy(tmp_path):
    """An edit with an error is refused at its reload, but the file stays broken: at the next
    boot kiosk refused to start (exit 2, systemd's restarts every 5 s: a dark screen). Now the start
    plays kiosk.conf as it last loaded (kept in the state directory, private), says the errors,
    and takes the fixed file at once. Without a kept copy a broken file still stops the start."""
    make_clip(tmp_path / "a.mp4", 1.0)
    make_clip(tmp_path / "b.mp4", 1.0)
    socket, log, state = tmp_path / "ctl.sock", tmp_path / "kiosk.log", tmp_path / "state"
    conf = tmp_path / "kiosk.conf"
    head = f"audio: {{device: none}}\ninput: {{enabled: false}}\ncontrol: {{socket: {socket}}}\n"
    conf.write_text(head + f"items:\n  - {tmp_path / 'a.mp4'}\n")
    command = [str(KIOSK), "run", "--config", str(conf), "--display", "headless:160x120", "--state-dir", str(state),
               "--duration", "60"]

    def title():
        result = subprocess.run([str(KIOSK), "ctl", "--socket", str(socket), "get", "title"], capture_output=True, text=True)
        return result.stdout.strip()

    # A fresh state directory and a broken file: the start stops, as before.
    conf.write_text(head + "items:\n  - {path: a.mp4, colour: red}\n")
    first = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert first.returncode == 2 and "unknown key 'colour'" in first.stderr, first
    # A start with the good file keeps it.
    conf.write_text(head + f"items:\n  - {tmp_path / 'a.mp4'}\n")
    with open(log, "w") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: socket.exists() and title() == "a.mp4", 30, "a.mp4 on screen")
    finally:
        process.terminate()
        process.wait(timeout=20)
    kept = state / "last-good.conf"

    def copy_of(path):
        return f"# kiosk: the last good copy of {path}\n".encode() + path.read_bytes()
    assert kept.read_bytes() == copy_of(conf) and kept.stat().st_mode & 0o777 == 0o600
    # Another file with the same state directory: the copy is kiosk.conf's, not its own.
    other = tmp_path / "other.conf"
    other.write_text(head + "items:\n  - {path: a.mp4, colour: red}\n")
    refused = subprocess.run([*command[:3], str(other), *command[4:]], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "unknown key 'colour'" in refused.stderr, refused
    # Broken while kiosk is stopped: the next start plays the kept copy and says why.
    conf.write_text(head + f"items:\n  - {{path: {tmp_path / 'b.mp4'}, colour: red}}\n")
    broken = conf.read_bytes()
    with open(log, "w") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: socket.exists() and title() == "a.mp4", 30, "the last good playlist")
        text = log.read_text()
        assert "unknown key 'colour'" in text and "playing kiosk.conf as it last loaded" in text, text
        assert conf.read_bytes() == broken   # nothing the user wrote is overwritten
        # Fixed: taken at once, and kept.
        conf.write_text(head + f"items:\n  - {tmp_path / 'b.mp4'}\n")
        wait_for(lambda: title() == "b.mp4", 30, "the fixed file's playlist")
        wait_for(lambda: kept.read_bytes() == copy_of(conf), 10, "the fixed file kept")
    finally:
        process.terminate()
        process.wait(timeout=20)
    assert process.returncode == 0, log.read_text()


def test_kiosk_checks_warnings_reach_the_journal_once(tmp_path):
    """`kiosk check` printed a file's warnings (a power window whose from is its to: 24 hours;
    a TZ the tz database does not know: UTC without a word), `kiosk run` said nothing of them,
    and nobody runs check on an unattended box. The start logs each; a reload logs only those
    it brings (the edited window), not those already said (the TZ, the window moved a line down
    by a comment), and a SIGHUP none."""
    make_clip(tmp_path / "a.mp4", 1.0)
    socket, log = tmp_path / "ctl.sock", tmp_path / "kiosk.log"
    conf = tmp_path / "kiosk.conf"
    head = f"audio: {{device: none}}\ninput: {{enabled: false}}\ncontrol: {{socket: {socket}}}\nitems:\n  - {tmp_path / 'a.mp4'}\n"
    conf.write_text(head + 'display:\n  power:\n    - {from: "07:00", to: "07:00"}\n')
    with open(log, "w") as output:
        process = subprocess.Popen([str(KIOSK), "run", "--config", str(conf), "--display", "headless:160x120",
                                    "--state-dir", str(tmp_path / "state"), "--duration", "60"],
                                   stdout=output, stderr=subprocess.STDOUT, env={**os.environ, "TZ": "Europe/Nowhere"})
    try:
        wait_for(lambda: socket.exists(), 30, "the control socket")
        conf.write_text(head + 'display:\n  power:\n    - {from: "08:00", to: "08:00"}\n')
        wait_for(lambda: "reloaded" in log.read_text(), 30, "the edit's reload")
        conf.write_text("# moved down a line\n" + head + 'display:\n  power:\n    - {from: "08:00", to: "08:00"}\n')
        process.send_signal(signal.SIGHUP)
        wait_for(lambda: "reloaded, nothing to change" in log.read_text(), 30, "the SIGHUP's reload")
    finally:
        process.terminate()
        process.wait(timeout=20)
    text = log.read_text()
    window = f"{conf}:8:27: warning: 'from' and 'to' in display.power window 1 are both"
    assert text.count(f"{window} 07:00") == 1 and text.count(f"{window} 08:00") == 1, text
    assert text.count("window 1 are both 08:00") == 1, text   # not again from line 9
    assert text.count("warning: TZ is 'Europe/Nowhere', which the tz database does not know") == 1, text
    check = subprocess.run([str(KIOSK), "check", str(conf)], capture_output=True, text=True, timeout=60,
                           env={**os.environ, "TZ": "Europe/Nowhere"})
    moved = f"{conf}:9:27: warning: 'from' and 'to' in display.power window 1 are both 08:00"
    assert check.returncode == 0 and moved in check.stderr and "TZ is 'Europe/Nowhere'" in check.stderr, check
