"""HDMI-CEC in the VM bed: kiosk's Standby and wake-up, seen by a TV on the same bus.

The guest loads the kernel's vivid driver (Bed(modules=["vivid"]); OPTIONAL_MODULES in
deploy/vm/build-initramfs) with one HDMI input and one HDMI output. Its CEC emulation joins
their two adapters on one virtual bus: the input's adapter plays the TV (configured with
`cec-ctl --tv`: logical address 0, physical address 0.0.0.0), the output's is the source kiosk
drives (physical address 1.0.0.0, no logical address until kiosk claims one). One boot runs,
from this worktree's kiosk build (built_kiosk.py):

1. `kiosk cec status` before anything: both adapters, and the output one chosen;
2. `kiosk cec standby` while no TV is on the bus: kiosk claims Playback Device 1, the Standby is
   NACKed, kiosk exits 1 saying so;
3. with the TV configured and `cec-ctl --monitor` recording on its adapter: `kiosk cec --device
   <output> standby`, then `wake`; the TV must receive Standby, then Image View On, then Active
   Source with the output's physical address, all from kiosk's logical address;
4. `kiosk run` with `display.power_control: cec`: the TV is woken at start, sent to standby
   by the control socket's `display_power off` (the screen's KMS power left on), woken again
   by `display_power on`;
5. the TV's own adapter refused as a source; an unprivileged user outside the device's group
   told which group to join; `kiosk cec status` after: the claimed address and OSD name.

What vivid cannot show: a real TV's reaction (its "TV" is cec-ctl answering Feature Abort).

Needs a kiosk build (built_kiosk.py): `swift build` in this worktree first.
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

from bed import Bed  # noqa: E402

from built_kiosk import KIOSK  # noqa: E402  (the release build when fresh: the guests run it)

GUEST_COMMAND = r'''
K=@KIOSK@
# What the other bed tests rely on, with vivid loaded: the same DRM card, framebuffer, sound card.
{ ls /dev/dri; ls /dev/fb*; cat /proc/asound/cards; } > devices.txt 2>&1
# Which adapter is which: vivid names them after their video nodes (vid-cap: the HDMI input).
for d in /dev/cec*; do
    if cec-ctl -d "$d" | grep -q 'Adapter Name.*vid-cap'; then echo "$d" > tv-adapter; else echo "$d" > source-adapter; fi
done
TV=$(cat tv-adapter); SRC=$(cat source-adapter)
$K cec status > status-before.txt 2>&1; echo $? > status-before.rc
# No TV on the bus yet: nobody acknowledges address 0.
$K cec --device "$SRC" standby > nack.out 2> nack.err; echo $? > nack.rc
cec-ctl -d "$TV" --tv > tv-setup.txt 2>&1
cec-ctl -d "$TV" --monitor > monitor.txt 2>&1 &
monitor=$!
i=0; while ! grep -q 'Initial Event' monitor.txt && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
$K cec --device "$SRC" standby > standby.out 2> standby.err; echo $? > standby.rc
$K cec --device "$SRC" wake > wake.out 2> wake.err; echo $? > wake.rc
# The TV's adapter has the messages once wake returns; wait for the monitor to print the last.
i=0; while ! grep -A1 ACTIVE_SOURCE monitor.txt | grep -q phys-addr && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
kill $monitor
# kiosk run with power_control: cec: the TV is woken at start, sent to standby when the control
# socket switches the screen off, woken again when it is switched on; KMS is left on meanwhile.
cec-ctl -d "$TV" --monitor > monitor-run.txt 2>&1 &
monitor=$!
i=0; while ! grep -q 'Initial Event' monitor-run.txt && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
$K run --config run.conf --control-socket /tmp/kiosk.sock > run.log 2>&1 &
pid=$!
i=0; while [ ! -e /tmp/kiosk.sock ] && [ $i -lt 3000 ]; do sleep 0.1; i=$((i+1)); done
# Counted without the power questions (Give Device Power Status) kiosk asks at its start and
# after each change: the follow sequence is what these waits are for.
received() { grep '^Received from' monitor-run.txt | grep -vc GIVE_DEVICE_POWER_STATUS; }
await_received() { i=0; while [ "$(received)" -lt "$1" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done; }
await_received 2
$K ctl --socket /tmp/kiosk.sock display_power off > ctl-off.txt 2>&1
await_received 3
cat /sys/class/drm/card0-*/dpms > dpms-while-off.txt
$K ctl --socket /tmp/kiosk.sock display_power on > ctl-on.txt 2>&1
await_received 5
sleep 0.5   # the last message's operand line
kill -TERM $pid; wait $pid; echo $? > run.rc
kill $monitor
# A TV that answers for its power: cec-follower (v4l-utils) follows the TV's adapter, goes to
# standby on Standby and on again on Image View On, and reports it. kiosk's health says what
# the TV says: on after the wake at start, off after `display_power off`, on again after on.
cec-follower -d "$TV" > follower.txt 2>&1 &
follower=$!
sleep 1
$K run --config run.conf --control-socket /tmp/kiosk-tv.sock > run-tv.log 2>&1 &
pid=$!
python3 - > tv-power.json 2> tv-power.err <<'PY'
import json, sys, time
sys.path.insert(0, "@TESTS@")
from control_client import ControlClient, wait_until
wait_until(lambda: __import__("os").path.exists("/tmp/kiosk-tv.sock"), timeout=300)
client = ControlClient("/tmp/kiosk-tv.sock", timeout=60)
tv = lambda: client.ok("get", "health")["tv_power_on"]
seen = {"start": wait_until(lambda: tv() is True, timeout=120, interval=0.2)}
client.ok("display_power", "off")
seen["off"] = wait_until(lambda: tv() is False, timeout=120, interval=0.2)
client.ok("display_power", "on")
seen["on"] = wait_until(lambda: tv() is True, timeout=120, interval=0.2)
print(json.dumps(seen))
PY
kill -TERM $pid; wait $pid; echo $? > run-tv.rc
kill $follower
$K cec --device "$TV" standby > as-tv.out 2> as-tv.err; echo $? > as-tv.rc
chgrp video "$SRC" && chmod 660 "$SRC"
setpriv --reuid=nobody --regid=nogroup --clear-groups $K cec --device "$SRC" standby > denied.out 2> denied.err
echo $? > denied.rc
$K cec status > status-after.txt 2>&1; echo $? > status-after.rc
'''

RUN_CONFIG = """items: [clip.mp4]
display: {output: drm, power_control: cec}
audio: {device: none}
input: {enabled: false}
"""

# cec-ctl --monitor: "Received from Playback Device 1 to TV (4 to 0): STANDBY (0x36)", operands
# on the indented lines after it ("\tphys-addr: 1.0.0.0").
RECEIVED = re.compile(r"^Received from .+? \((\d+) to (\d+)\): ([A-Z_]+) \(0x([0-9a-f]+)\)")


def received_messages(monitor: str) -> list[dict]:
    messages: list[dict] = []
    for line in monitor.splitlines():
        match = RECEIVED.match(line)
        if match:
            initiator, destination, name, opcode = match.groups()
            messages.append({"from": int(initiator), "to": int(destination), "name": name,
                             "opcode": int(opcode, 16), "operands": {}})
        elif messages and line.startswith("\t") and ":" in line:
            key, value = line.strip().split(":", 1)
            messages[-1]["operands"][key] = value.strip()
    return messages


@pytest.fixture(scope="module")
def guest(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    workdir = tmp_path_factory.mktemp("cec-bed")
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                    "testsrc2=size=320x240:rate=10:duration=4", "-c:v", "libx264", "-preset", "ultrafast",
                    "-pix_fmt", "yuv420p", str(workdir / "clip.mp4")], check=True)
    (workdir / "run.conf").write_text(RUN_CONFIG)
    with Bed(driver="bochs", size=(640, 480), workdir=workdir, modules=["vivid"]) as bed:
        # A backstop: about nine debug kiosk starts over 9p under TCG, each seconds long.
        code = bed.run(GUEST_COMMAND.replace("@KIOSK@", str(KIOSK)).replace("@TESTS@", str(Path(__file__).parent)),
                       timeout=900)
    assert code == 0, (workdir / "console.log").read_text(errors="replace")[-3000:]
    return workdir


def read(workdir: Path, name: str) -> str:
    path = workdir / name
    return path.read_text(errors="replace").strip() if path.exists() else f"({name} missing)"


def test_vivid_leaves_the_drm_card_framebuffer_and_sound_card_as_they_were(guest):
    devices = read(guest, "devices.txt")
    assert devices.split()[:2] == ["card0", "/dev/fb0"], devices   # one card, one framebuffer
    assert re.search(r"^ 0 \[Loopback", devices, re.M), devices
    assert "/dev/fb1" not in devices, devices


def test_status_lists_both_adapters_and_chooses_the_output(guest):
    tv, source = read(guest, "tv-adapter"), read(guest, "source-adapter")
    status = read(guest, "status-before.txt")
    assert read(guest, "status-before.rc") == "0", status
    assert f"{tv}\n  driver: vivid (vivid-000-vid-cap0)\n  physical address: 0.0.0.0" in status
    assert f"{source}\n  driver: vivid (vivid-000-vid-out0)\n  physical address: 1.0.0.0\n" \
           "  logical addresses: none configured (kiosk claims a Playback address when it sends)" in status
    assert status.endswith(f"standby and wake use {source}"), status


def test_a_standby_nobody_acknowledges_fails_saying_so(guest):
    source = read(guest, "source-adapter")
    error = read(guest, "nack.err")
    assert read(guest, "nack.rc") == "1", error
    assert error.startswith(f"kiosk: {source}: Standby (0x36) from 4 (Playback Device 1) to 0 (TV) failed (NACK"), error
    assert "no device at logical address 0 (TV) acknowledged it" in error


def test_the_tv_receives_standby_then_image_view_on_and_active_source_from_kiosk(guest):
    monitor = read(guest, "monitor.txt")
    for step in ("standby", "wake"):
        assert read(guest, f"{step}.rc") == "0", read(guest, f"{step}.err")
    assert read(guest, "standby.out") == "sent Standby (0x36) from 4 (Playback Device 1) to 0 (TV)"
    assert read(guest, "wake.out").splitlines() == [
        "sent Image View On (0x04) from 4 (Playback Device 1) to 0 (TV)",
        "sent Active Source (0x82) from 4 (Playback Device 1) to all: 10 00"]
    # kiosk's logical address, as the adapter reports it afterwards.
    after = read(guest, "status-after.txt")
    claimed = re.search(rf"^{re.escape(read(guest, 'source-adapter'))}\n.*?logical addresses: (\d+) ", after, re.M | re.S)
    assert claimed, after
    kiosk_address = int(claimed.group(1))
    received = [m for m in received_messages(monitor) if m["from"] == kiosk_address]
    assert [(m["name"], m["opcode"], m["to"]) for m in received] == [
        ("STANDBY", 0x36, 0), ("IMAGE_VIEW_ON", 0x04, 0), ("ACTIVE_SOURCE", 0x82, 15)], monitor
    assert received[2]["operands"].get("phys-addr") == "1.0.0.0", monitor


def test_the_tvs_own_adapter_is_refused_as_a_source(guest):
    error = read(guest, "as-tv.err")
    assert read(guest, "as-tv.rc") == "1", error
    assert "the adapter is the TV (logical address 0): it belongs to an HDMI input" in error


def test_a_user_outside_the_devices_group_is_told_which_group_to_join(guest):
    source = read(guest, "source-adapter")
    error = read(guest, "denied.err")
    assert read(guest, "denied.rc") == "1", error
    assert error == (f"kiosk: {source}: permission denied: add kiosk's user to the group 'video' "
                     "that owns it (usermod -aG video USER)")


def test_kiosk_claimed_a_playback_address_named_kiosk(guest):
    after = read(guest, "status-after.txt")
    source = read(guest, "source-adapter")
    assert read(guest, "status-after.rc") == "0", after
    assert f"{source}\n  driver: vivid (vivid-000-vid-out0)\n  physical address: 1.0.0.0\n" \
           "  logical addresses: 4 (Playback Device 1)\n  OSD name: kiosk" in after, after


def test_kiosk_run_follows_display_power_with_the_tv(guest):
    monitor = read(guest, "monitor-run.txt")
    assert read(guest, "run.rc") == "0", read(guest, "run.log")
    assert read(guest, "ctl-off.txt") == "" and read(guest, "ctl-on.txt") == ""
    received = [(m["name"], m["to"]) for m in received_messages(monitor)]
    # The power questions (asked at the start and after each change) go to the TV alone; the
    # rest is the follow sequence, exactly.
    questions = [r for r in received if r[0] == "GIVE_DEVICE_POWER_STATUS"]
    assert questions and set(questions) == {("GIVE_DEVICE_POWER_STATUS", 0)}, monitor
    assert [r for r in received if r[0] != "GIVE_DEVICE_POWER_STATUS"] == [
        ("IMAGE_VIEW_ON", 0), ("ACTIVE_SOURCE", 15), ("STANDBY", 0), ("IMAGE_VIEW_ON", 0), ("ACTIVE_SOURCE", 15)], monitor
    # power_control: cec: KMS was not switched; the screen showed black instead.
    assert read(guest, "dpms-while-off.txt") == "On"


def test_the_health_says_the_tvs_power_as_the_tv_reports_it(guest):
    """cec-follower as the TV: `tv_power_on` true after kiosk woke it, false after
    `display_power off` sent it to standby, true again after `display_power on`."""
    log = read(guest, "run-tv.log")
    assert read(guest, "run-tv.rc") == "0", log
    seen = read(guest, "tv-power.json")
    assert seen.startswith("{"), f"{seen}\n{read(guest, 'tv-power.err')}\n{log[-2000:]}"
    assert json.loads(seen) == {"start": True, "off": True, "on": True}, f"{seen}\n{log[-2000:]}"
    assert "HDMI-CEC: the TV says it is in standby" in log and "HDMI-CEC: the TV says it is on" in log, log[-2000:]
