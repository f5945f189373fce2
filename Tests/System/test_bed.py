"""Checks of the QEMU test bed itself (deploy/vm): do the guests give kiosk
what its system tests need?

One guest boots per display driver (module-scoped: a boot costs ~5 s under
TCG) and runs every in-guest check in one go, writing results into its work
directory; the tests below then assert on those results.

- bochs at 1024x768 and virtio-gpu at 800x600: /dev/dri/card0, a connected
  connector whose preferred (first) mode is the requested size, a screendump
  of that size that shows what the guest drew on the framebuffer;
- /dev/uinput works: a device made through it delivers a key press on its
  /dev/input/event node;
- snd-aloop is card 0 and a tone played on hw:Loopback,0 is recorded back on
  hw:Loopback,1 (bochs guest only: sound does not depend on the display).
"""

from __future__ import annotations

import json
import math
import struct
import sys
import time
import wave
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "deploy" / "vm"))

from bed import BOOT_TIMEOUT, Bed, read_png  # noqa: E402

SIZES = {"bochs": (1024, 768), "virtio-gpu": (800, 600)}
FILL = (0x20, 0x80, 0xE0)  # colour the guest paints its framebuffer with
TONE_HZ = 1000
RATE = 48000
SHOT_DEADLINE = 120  # s: for the guest's fill to reach a screendump
# Debian's python3 starts in about half the time of a pyenv build under TCG
# (~0.9 s against ~1.7 s); the running interpreter is the fallback.
GUEST_PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable

# Runs inside the guest with a Python from the host root (read over 9p):
# paints the fbdev framebuffer and round-trips a key through uinput.
GUEST_CHECKS = r'''
import fcntl, json, os, struct, sys, time
r, g, b = (int(v) for v in sys.argv[1:4])
out = {}

# fbdev emulation of the DRM driver: fill both pages (32 bpp XRGB8888).
fb = "/sys/class/graphics/fb0/"
stride = int(open(fb + "stride").read())
vh = int(open(fb + "virtual_size").read().split(",")[1])
out["fb_bpp"] = int(open(fb + "bits_per_pixel").read())
with open("/dev/fb0", "wb") as f:
    f.write(bytes((b, g, r, 0)) * (stride // 4) * vh)

# uinput: legacy setup (struct uinput_user_dev), one key, then read it back.
UI_SET_EVBIT, UI_SET_KEYBIT, UI_DEV_CREATE = 0x40045564, 0x40045565, 0x5501
EV_SYN, EV_KEY, KEY_SPACE = 0, 1, 57
ui = os.open("/dev/uinput", os.O_WRONLY | os.O_NONBLOCK)
fcntl.ioctl(ui, UI_SET_EVBIT, EV_KEY)
fcntl.ioctl(ui, UI_SET_KEYBIT, KEY_SPACE)
os.write(ui, struct.pack("80sHHHHi", b"kiosk-bed-test", 3, 1, 1, 1, 0) + bytes(4 * 64 * 4))
fcntl.ioctl(ui, UI_DEV_CREATE)
node = None
for _ in range(100):
    for d in os.listdir("/sys/class/input"):
        name = "/sys/class/input/%s/device/name" % d
        if d.startswith("event") and os.path.exists(name) \
                and open(name).read().strip() == "kiosk-bed-test" \
                and os.path.exists("/dev/input/" + d):
            node = "/dev/input/" + d
    if node:
        break
    time.sleep(0.05)
out["uinput_node"] = node
if node:
    ev = os.open(node, os.O_RDONLY)
    for etype, code, value in ((EV_KEY, KEY_SPACE, 1), (EV_SYN, 0, 0)):
        os.write(ui, struct.pack("llHHi", 0, 0, etype, code, value))
    _, _, etype, code, value = struct.unpack("llHHi", os.read(ev, 24))
    out["uinput_event"] = [etype, code, value]
print(json.dumps(out))
json.dump(out, open("checks.json", "w"))
'''

# The guest's command: collect facts, record the tone while playing it, run
# the checks above, then hold still until the host has its screenshot (for
# as long as it takes: the host's bed.wait deadline is the backstop).
GUEST_COMMAND = r'''
ls -l /dev/dri/card0 /dev/uinput > devices.txt 2>&1
for c in /sys/class/drm/card0-*; do
    echo "${c##*/} $(cat $c/status) $(head -n 1 $c/modes)"
done > connectors.txt
aplay -l > aplay-l.txt 2>&1
arecord -l > arecord-l.txt 2>&1
if [ -e tone.wav ]; then
    # Record until the tone has been played (at most 30 s), not for a fixed
    # time: on a busy host starting aplay alone can take seconds.
    arecord -q -D hw:Loopback,1,0 -f S16_LE -r @RATE@ -c 2 -d 30 rec.wav &
    rec=$!
    # Play only once the capture side is open, or the tone goes nowhere.
    i=0
    while grep -q closed /proc/asound/card0/pcm1c/sub0/status && [ $i -lt 200 ]; do
        sleep 0.05; i=$((i+1))
    done
    aplay -q -D hw:Loopback,0,0 tone.wav
    sleep 0.3
    kill -INT $rec  # arecord finishes the WAV header on SIGINT
    wait $rec
fi
@PYTHON@ -S guest-checks.py @FILL@
touch ready
while [ ! -e shot-taken ]; do sleep 0.1; done
'''


@dataclass
class Guest:
    driver: str
    size: tuple[int, int]
    workdir: Path
    exit_code: int
    boot_seconds: float
    console: str
    shot: Path
    shot_pixels: list[tuple[int, int, int]]

    def text(self, name: str) -> str:
        return (self.workdir / name).read_text()


def write_tone(path: Path, seconds: float = 1.0) -> None:
    frames = bytearray()
    for i in range(int(RATE * seconds)):
        s = int(12000 * math.sin(2 * math.pi * TONE_HZ * i / RATE))
        frames += struct.pack("<hh", s, s)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(bytes(frames))


def boot(driver: str, workdir: Path, with_sound: bool) -> Guest:
    size = SIZES[driver]
    (workdir / "guest-checks.py").write_text(GUEST_CHECKS)
    if with_sound:
        write_tone(workdir / "tone.wav")
    command = (GUEST_COMMAND.replace("@RATE@", str(RATE))
               .replace("@PYTHON@", GUEST_PYTHON)
               .replace("@FILL@", " ".join(map(str, FILL))))
    w, h = size
    probes = [(0, 0), (w // 2, h // 2), (w - 1, h - 1)]
    with Bed(driver=driver, size=size, workdir=workdir) as bed:
        bed.start(command)
        bed.wait_for_file("ready", timeout=BOOT_TIMEOUT)
        shot = workdir / "shot.png"
        # virtio-gpu flushes fbdev writes from a worker, which a starved guest can run a minute
        # late: screendumps until the fill is there or the deadline passes (the test then
        # asserts on the last one).
        deadline = time.monotonic() + SHOT_DEADLINE
        while True:
            img = read_png(bed.screendump(shot))
            pixels = [img.pixel(x, y) for x, y in probes] if (img.width, img.height) == size else []
            if (pixels and all(p == FILL for p in pixels)) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        (workdir / "shot-taken").touch()
        code = bed.wait(timeout=60)
        return Guest(driver, size, workdir, code, bed.boot_seconds or 0.0,
                     bed.console_log(), shot, pixels)


@pytest.fixture(scope="module")
def bochs_guest(tmp_path_factory) -> Guest:
    return boot("bochs", tmp_path_factory.mktemp("bochs"), with_sound=True)


@pytest.fixture(scope="module")
def virtio_gpu_guest(tmp_path_factory) -> Guest:
    return boot("virtio-gpu", tmp_path_factory.mktemp("virtio-gpu"), with_sound=False)


@pytest.fixture(params=["bochs", "virtio-gpu"])
def guest(request) -> Guest:
    return request.getfixturevalue(request.param.replace("-", "_") + "_guest")


def test_guest_command_succeeds(guest: Guest):
    assert guest.exit_code == 0, guest.console
    print(f"{guest.driver}: command started {guest.boot_seconds:.1f} s after start()")


def test_drm_card_exists(guest: Guest):
    assert "/dev/dri/card0" in guest.text("devices.txt"), guest.text("devices.txt")


def test_connector_prefers_requested_mode(guest: Guest):
    lines = guest.text("connectors.txt").splitlines()
    w, h = guest.size
    assert any(line.split()[1:] == ["connected", f"{w}x{h}"] for line in lines), lines


def test_uinput_delivers_events(guest: Guest):
    assert "/dev/uinput" in guest.text("devices.txt")
    checks = json.loads(guest.text("checks.json"))
    assert checks["uinput_node"], guest.console
    assert checks["uinput_event"] == [1, 57, 1]  # EV_KEY, KEY_SPACE, pressed


def test_screendump_shows_guest_framebuffer(guest: Guest):
    img = read_png(guest.shot)
    assert (img.width, img.height) == guest.size
    assert json.loads(guest.text("checks.json"))["fb_bpp"] == 32
    assert guest.shot_pixels == [FILL] * 3


def test_aloop_is_card_0(bochs_guest: Guest):
    for listing in ("aplay-l.txt", "arecord-l.txt"):
        text = bochs_guest.text(listing)
        assert "card 0: Loopback" in text and "device 1" in text, text


def test_tone_played_on_loopback_0_is_recorded_on_loopback_1(bochs_guest: Guest):
    with wave.open(str(bochs_guest.workdir / "rec.wav")) as w:
        assert (w.getframerate(), w.getnchannels(), w.getsampwidth()) == (RATE, 2, 2)
        data = w.readframes(w.getnframes())
    left = struct.unpack(f"<{len(data) // 2}h", data)[::2]
    loud = [i for i, s in enumerate(left) if abs(s) > 6000]
    assert loud, "recording is silent: the tone did not come back"
    tone = left[loud[0]:loud[-1]]
    assert len(tone) > RATE * 0.9, f"only {len(tone) / RATE:.2f} s of tone recorded"
    crossings = sum(1 for a, b in zip(tone, tone[1:]) if (a < 0) != (b < 0))
    hz = crossings / 2 / (len(tone) / RATE)
    assert abs(hz - TONE_HZ) < TONE_HZ * 0.02, f"recorded tone is {hz:.0f} Hz"
