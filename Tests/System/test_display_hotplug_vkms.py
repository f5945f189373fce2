"""A screen unplugged and plugged in again, for real: vkms's configfs connector in the bed.

vkms (the bed's 7.3 kernel) makes devices from configfs; a connector's `status` there can be
changed while the device runs, and vkms then sends the hotplug uevent a real HDMI or DisplayPort
driver sends. The guest makes such a device (a primary plane, a YUV-capable overlay plane, a CRTC
with a writeback connector, an encoder and a connector), plays a clip with `kiosk run` on it and,
through the control socket's `health`:
1. connected at the start: `display_connected` true, no hotplug, no alert;
2. the connector set disconnected: `display_connected` false within the watch's time, the alert
   "display disconnected", one line in the log, and playback going on (frames still presented);
3. connected again: `display_connected` true, two hotplugs, the alert gone, one line saying the
   link is good (vkms keeps it: no modeset is needed; a link-status BAD would be set anew); the
   picture read back through writeback after that (paused, the frame `get time` names) is the
   clip's frame (PSNR >= 35 dB against `kiosk snapshot`), on the plane.
The metrics file says the same (`kiosk_display_connected`, `kiosk_display_hotplugs_total`).

Needs a kiosk build (`swift build`; built_kiosk.py) and the bed's 7.3 kernel with vkms (deploy/setup makes it;
without it the test fails with bed-kernel's reason).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "deploy" / "vm"))

from bed import BOOT_TIMEOUT, Bed  # noqa: E402
from test_planes_vkms import MIN_PSNR, make_clip, psnr  # noqa: E402

from built_kiosk import KIOSK  # noqa: E402  (the release build when fresh: the guests run it)
# No default device: the only vkms card is the one the guest makes in configfs.
VKMS = "vkms create_default_dev=0"
CLIP_SECONDS = 6   # clip.mp4, looped

CONFIG = """input: {enabled: false}
playback: {loop: item}
items: ['{dir}/clip.mp4']
metrics: {textfile: /tmp/kiosk.prom, interval: 1}
"""

GUEST = r'''
import json, os, sys, time
from pathlib import Path
sys.path.insert(0, @TESTS@)
from control_client import ControlClient, wait_until
from paused_shots import keep_run, pause_and_shoot, terminate
import subprocess

kiosk, work = @KIOSK@, Path(@WORK@)
result = {}

# The device: vkms's configfs (Documentation/gpu/vkms.rst): objects are folders, links say
# which may go with which, `enabled` creates the card.
device = Path("/sys/kernel/config/vkms/hotplug")
device.mkdir()
def make(kind, name, **attributes):
    folder = device / kind / name
    folder.mkdir()
    for key, value in attributes.items():
        (folder / key).write_text(str(value))
    return folder
crtc = make("crtcs", "crtc", writeback=1)
for name, kind in (("primary", 1), ("overlay", 0)):   # DRM_PLANE_TYPE_PRIMARY, _OVERLAY
    os.symlink(crtc, make("planes", name, type=kind) / "possible_crtcs" / "crtc")
encoder = make("encoders", "encoder")
os.symlink(crtc, encoder / "possible_crtcs" / "crtc")
connector = make("connectors", "screen")
os.symlink(encoder, connector / "possible_encoders" / "encoder")
(device / "enabled").write_text("1")
cards = [c for c in sorted(Path("/sys/class/drm").glob("card[0-9]")) if (c / "device").resolve().name == "hotplug"]
if not cards:
    (work / "no-vkms").write_text(" ".join(os.listdir("/sys/class/drm")))
    sys.exit(3)
card = "/dev/dri/" + cards[0].name
result["card"] = card

sock, stats = "/tmp/kiosk.sock", "/tmp/stats.jsonl"
log = open(work / "kiosk.log", "w")
proc = subprocess.Popen([kiosk, "run", "--config", str(work / "kiosk.conf"), "--display", "drm:%s::640x480" % card,
                         "--audio", "none", "--control-socket", sock, "--stats-file", stats, "--log-level", "info"],
                        stdout=log, stderr=subprocess.STDOUT, cwd=str(work))
def set_status(value):   # 1 connected, 2 disconnected (enum drm_connector_status)
    (connector / "status").write_text(str(value))
try:
    if not wait_until(lambda: os.path.exists(sock) and os.path.exists(stats) and os.path.getsize(stats) > 0, timeout=600):
        raise RuntimeError("kiosk never showed a frame")
    client = ControlClient(sock, timeout=120)
    health = lambda: client.ok("get", "health")
    wait_until(lambda: health()["display_connected"] is not None, timeout=600, interval=0.2)
    result["start"] = health()
    set_status(2)
    wait_until(lambda: health()["display_connected"] is False, timeout=600, interval=0.2)
    result["unplugged"] = health()
    # Playback goes on while the cable is out: more frames presented.
    frames = result["unplugged"]["frames_presented"]
    result["played_while_unplugged"] = wait_until(lambda: health()["frames_presented"] >= frames + 10, timeout=600, interval=0.2)
    # The metrics file is rewritten each second by a timer of its own, which a starved guest delays.
    wait_until(lambda: "kiosk_display_connected 0" in open("/tmp/kiosk.prom").read(), timeout=600, interval=0.2)
    result["metrics_unplugged"] = open("/tmp/kiosk.prom").read()
    set_status(1)
    wait_until(lambda: health()["display_connected"] is True, timeout=600, interval=0.2)
    result["returned"] = health()
    frames = result["returned"]["frames_presented"]
    result["played_after_return"] = wait_until(lambda: health()["frames_presented"] >= frames + 10, timeout=600, interval=0.2)
    result["shots"] = pause_and_shoot(client, work, 1, stats)
    wait_until(lambda: "kiosk_display_connected 1" in open("/tmp/kiosk.prom").read(), timeout=600, interval=0.2)
    result["metrics_returned"] = open("/tmp/kiosk.prom").read()
    client.close()
except Exception as error:
    result["error"] = repr(error)
result["exit"] = terminate(proc)
keep_run(work, stats, result)
'''


@pytest.fixture(scope="module")
def guest(tmp_path_factory) -> Path:
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} missing: run `swift build` first")
    work = tmp_path_factory.mktemp("hotplug-vkms")
    make_clip(work / "clip.mp4", (640, 360), "bt709", seconds=CLIP_SECONDS)
    (work / "kiosk.conf").write_text(CONFIG.replace("{dir}", str(work)))
    (work / "guest.py").write_text(GUEST.replace("@TESTS@", repr(str(Path(__file__).parent)))
                                   .replace("@KIOSK@", repr(str(KIOSK))).replace("@WORK@", repr(str(work))))
    with Bed(kernel="7.3", modules=[VKMS], size=(1024, 768), workdir=work) as bed:
        bed.start("exec python3 ./guest.py")
        code = bed.wait(timeout=BOOT_TIMEOUT + 1200)
    assert code == 0, f"guest exited {code}; {(work / 'no-vkms').read_text() if (work / 'no-vkms').exists() else ''}" \
                      f"\n{bed.console_log()[-3000:]}"
    return work


def run_of(work: Path) -> tuple[dict, str, list[dict]]:
    result = json.loads((work / "result.json").read_text())
    log = (work / "kiosk.log").read_text(errors="replace")
    stats = [json.loads(line) for line in (work / "stats.jsonl").read_text().splitlines() if line.strip()]
    assert "error" not in result, f"{result['error']}\n{log[-3000:]}"
    return result, log, stats


def test_the_cable_pulled_and_plugged_in_again_flips_display_connected_and_back(guest: Path):
    result, log, _ = run_of(guest)
    start, unplugged, returned = result["start"], result["unplugged"], result["returned"]
    assert start["display_connected"] is True and start["display_hotplugs"] == 0, start
    assert "display disconnected" not in start["alerts"], start
    assert unplugged["display_connected"] is False and unplugged["display_hotplugs"] == 1, unplugged
    assert "display disconnected" in unplugged["alerts"], unplugged
    assert returned["display_connected"] is True and returned["display_hotplugs"] == 2, returned
    assert "display disconnected" not in returned["alerts"], returned
    # The connector as sysfs names it: the card's node and the kernel's connector name.
    connector = re.escape(Path(result["card"]).name) + r"-Virtual-\d+"
    lost = [line for line in log.splitlines() if re.search(f"display {connector}: disconnected", line)]
    # vkms keeps the link (its link-status stays GOOD): nothing to set, the picture goes on.
    back = [line for line in log.splitlines()
            if re.search(f"display {connector}: connected again \\(its link is good: the picture goes on\\)", line)]
    assert len(lost) == 1 and len(back) == 1, log[-3000:]
    assert result["exit"] == 0, log[-2000:]


def test_playback_goes_on_while_unplugged_and_after(guest: Path):
    result, log, _ = run_of(guest)
    assert result["played_while_unplugged"], f"no new frame while the cable was out\n{log[-2000:]}"
    assert result["played_after_return"], f"no new frame after the screen came back\n{log[-2000:]}"


def test_the_returning_screen_shows_the_picture_on_the_plane(guest: Path):
    result, log, stats = run_of(guest)
    [shot] = result["shots"]
    assert "screenshots: read back through writeback connector" in log, log[-3000:]
    reference = Path(shot["shot"]).with_suffix(".expected.png")
    subprocess.run([str(KIOSK), "snapshot", str(guest / "clip.mp4"), "--size", "640x480", "--gravity", "fit",
                    "--at", repr(min(shot["time"], CLIP_SECONDS)), "-o", str(reference)], check=True)   # a pause at the end can read past it
    value = psnr(Path(shot["shot"]), reference)
    assert value >= MIN_PSNR, f"the screen at {shot['time']} s after the return is {value:.1f} dB from its frame"
    video = [s for s in stats if s.get("video")]
    assert video and video[-1].get("scanout") == "plane", f"{video[-3:]}\n{log[-2000:]}"


def test_the_metrics_file_says_the_cable(guest: Path):
    result, _, _ = run_of(guest)
    unplugged = result["metrics_unplugged"].splitlines()
    assert "kiosk_display_connected 0" in unplugged and "kiosk_display_hotplugs_total 1" in unplugged, unplugged
    returned = result["metrics_returned"].splitlines()
    assert "kiosk_display_connected 1" in returned and "kiosk_display_hotplugs_total 2" in returned, returned
