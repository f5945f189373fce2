"""System test of a trigger's `gpio:` line (issue 32) on the bed's gpio-sim (Bed(kernel="7.3")).

The guest makes a gpio-sim chip of 4 lines in configfs, sets line 1's simulated pull up (a
button at rest: the pull-up holds the pin high), then runs `kiosk run` with this kiosk.conf:

    items: [red.mp4]
    triggers:
      - name: button
        gpio: {chip: gpiochipN, line: 1, edge: falling, debounce: 1}
        items: [green.mp4]
      - name: late
        gpio: {chip: kiosk-late, line: 0, edge: rising, debounce: 0}
        items: [green.mp4]

(gpiochipN is the chip gpio-sim made; `kiosk-late` is the label of a second chip that does not
exist when kiosk starts.) The host writes the pull (`pull-down` is a press: a falling edge)
through a small command loop in the guest, and follows kiosk's control events (`kiosk ctl
watch`) and its log:

- `kiosk probe` lists the chip: name, label (gpio-sim's), 4 lines;
- kiosk says it reads gpiochipN line 1; the absent chip is one error line naming the trigger,
  the chip and the line, and it stays one line while kiosk retries;
- a press fires `button` once (green starts), its release (a rising edge) fires nothing;
- a second press after a quiet second fires again;
- a bounce burst (seven toggles, four of them falling, each within the 1 s debounce window of
  the one before) fires once: the gaps are measured in the guest and must lie inside the window;
- a last press after quiet is the marker: every fire before it is in the log by then (one
  thread reads the line in order), so "exactly once" is a count, never a wait for nothing;
- the chip labelled kiosk-late, made while kiosk runs, is opened on a retry (within 5 s) and its
  rising edge fires `late`;
- that chip taken away (gpio-sim's live set to 0) while kiosk holds its line is one error line,
  and made again it is opened again on a retry, and its line fires `late` again;
- SIGTERM: exit status 0.

Every wait is for an event, a log line or a file (deadlines are for hangs); the only sleeps are
the quiet time the debounce rule asks for before a press, which a slow guest only lengthens.

Needs a kiosk build (`swift build` in this worktree; built_kiosk.py) and the bed's 7.3 kernel (deploy/vm/bed-kernel).
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "deploy" / "vm"))

from bed import BOOT_TIMEOUT, Bed  # noqa: E402
from built_kiosk import KIOSK  # noqa: E402  (the release build when fresh: the guests run it)
from input_guest import make_clip  # noqa: E402

DEBOUNCE = 1.0
# Longer than the debounce window: the line counts as quiet before the next press.
QUIET = DEBOUNCE + 0.5

CONFIG = """\
display: {output: drm}
audio: {device: none}
control: {socket: /tmp/kiosk.sock}
overlay: {enabled: false}
items: [red.mp4]
triggers:
  - name: button
    gpio: {chip: @CHIP@, line: 1, edge: falling, debounce: @DEBOUNCE@}
    items: [green.mp4]
  - name: late
    gpio: {chip: kiosk-late, line: 0, edge: rising, debounce: 0}
    items: [green.mp4]
  - name: dark
    gpio: {chip: @CHIP@, line: 2, edge: falling, debounce: 0}
    command: [display_power, "off"]
"""

# The guest: the chip, kiosk, its event watcher, then a loop running the host's commands
# (cmd-NNNN, a shell script; done-NNNN holds its exit status) until `finish` appears.
GUEST_COMMAND = r'''
K=@KIOSK@
SOCKET=/tmp/kiosk.sock
await() { while [ ! -e "$1" ]; do sleep 0.1; done; }
cfg=/sys/kernel/config/gpio-sim/kiosk
mkdir $cfg $cfg/bank0
echo 4 > $cfg/bank0/num_lines
echo 1 > $cfg/live
chip=$(cat $cfg/bank0/chip_name)
echo "/sys/devices/platform/$(cat $cfg/dev_name)/$chip/sim_gpio1/pull" > pull-path
echo pull-up > "$(cat pull-path)"
echo "/sys/devices/platform/$(cat $cfg/dev_name)/$chip/sim_gpio2/pull" > dark-pull-path
echo pull-up > "$(cat dark-pull-path)"
sed "s/@CHIP@/$chip/g" kiosk.conf.in > kiosk.conf
# Whole, then renamed: the host waits for the name and must not read it half written.
echo "$chip" > chip-name.tmp && mv chip-name.tmp chip-name
"$K" probe > probe.txt 2>&1
"$K" run --config kiosk.conf > kiosk.log 2>&1 &
pid=$!
await $SOCKET
"$K" ctl --socket $SOCKET watch > events.jsonl 2> watch.log &
n=1
while [ ! -e finish ]; do
    cmd=$(printf 'cmd-%04d' $n)
    if [ -e "$cmd" ]; then
        # Written whole, then named: the host must never read a status still being written.
        sh "$cmd" > "$cmd.out" 2>&1; echo $? > done.tmp; mv done.tmp "$(printf 'done-%04d' $n)"; n=$((n + 1))
    else
        sleep 0.05
    fi
done
kill -TERM $pid
wait $pid; echo $? > kiosk.rc
'''

# The second chip, labelled kiosk-late, made while kiosk runs; its line 0 pulled up (rising).
MAKE_LATE_CHIP = r'''
late=/sys/kernel/config/gpio-sim/late
mkdir $late $late/bank0
echo 2 > $late/bank0/num_lines
echo kiosk-late > $late/bank0/label
echo 1 > $late/live
echo "/sys/devices/platform/$(cat $late/dev_name)/$(cat $late/bank0/chip_name)/sim_gpio0/pull" > late-pull-path
'''
# The same chip unplugged, and plugged again (its device and chip names may change).
UNPLUG_LATE_CHIP = "echo 0 > /sys/kernel/config/gpio-sim/late/live\n"
REPLUG_LATE_CHIP = r'''
late=/sys/kernel/config/gpio-sim/late
echo 1 > $late/live
echo "/sys/devices/platform/$(cat $late/dev_name)/$(cat $late/bank0/chip_name)/sim_gpio0/pull" > late-pull-path
'''


class Guest:
    """The host's side: commands to the guest's loop, kiosk's events and log."""

    def __init__(self, bed: Bed, workdir: Path):
        self.bed, self.workdir, self.sequence = bed, workdir, 0

    def run(self, script: str, timeout: float = 120) -> str:
        self.sequence += 1
        name = f"cmd-{self.sequence:04d}"
        (self.workdir / f"{name}.tmp").write_text(script)
        (self.workdir / f"{name}.tmp").rename(self.workdir / name)
        status = self.bed.wait_for_file(f"done-{self.sequence:04d}", timeout=timeout).read_text().strip()
        output = (self.workdir / f"{name}.out").read_text(errors="replace")
        assert status == "0", (script, status, output)
        return output

    def pull(self, *pulls: str, quiet_first: bool = True) -> str:
        """Writes each pull in turn (after the quiet time, unless told not to); prints the
        guest's monotonic seconds before the first write and after each. Between the first
        write and the last only shell builtins run (`echo`, `read`): a `cat` started between
        two writes costs ~0.1 s of a guest CPU, and a guest the host starves (the bed's queue
        at SCHED_IDLE beside a browser, or the stress form's hogs) took 2-5 s for each, which
        turned the burst's bounces into presses (CI, 2026-11-27)."""
        lines = [f"sleep {QUIET}"] if quiet_first else []
        uptime = 'read up idle < /proc/uptime; echo "$up $idle"'
        lines.append(f'p=$(cat pull-path); {uptime}')
        for pull in pulls:
            lines += [f'echo {pull} > "$p"', uptime]
        return self.run("\n".join(lines) + "\n")

    def events(self) -> list[dict]:
        path = self.workdir / "events.jsonl"
        if not path.exists():
            return []
        events = []
        for line in path.read_text().splitlines():
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError:
                pass  # a line being written
        return events

    def greens(self) -> int:
        return sum(1 for e in self.events() if e.get("event") == "item_started" and Path(e.get("path", "")).stem == "green")

    def log(self) -> str:
        path = self.workdir / "kiosk.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def fires(self, trigger: str = "button") -> int:
        return self.log().count(f"gpio: trigger '{trigger}' from ")

    def wait_until(self, what: str, condition, timeout: float = 120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = condition()
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}; events: {self.events()[-5:]}; kiosk log: {self.log()}")

    def wait_fires(self, count: int, trigger: str = "button") -> None:
        """Until `count` fires of `trigger` are logged."""
        self.wait_until(f"fire {count} of {trigger}", lambda: self.fires(trigger) >= count)


def uptimes(output: str) -> list[float]:
    """The /proc/uptime readings a pull command printed: before the first write and after each."""
    return [float(line.split()[0]) for line in output.splitlines() if re.match(r"^\d+\.\d+ \d+\.\d+$", line)]


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict:
    if not KIOSK.exists():
        pytest.skip(f"{KIOSK} missing: run `swift build` first")
    workdir = tmp_path_factory.mktemp("gpio")
    make_clip(workdir / "red.mp4", "red", 60)
    make_clip(workdir / "green.mp4", "green", 20)
    (workdir / "kiosk.conf.in").write_text(CONFIG.replace("@DEBOUNCE@", str(DEBOUNCE)))
    checks: dict = {}
    with Bed(kernel="7.3", modules=["gpio-sim"], size=(640, 480), workdir=workdir) as bed:
        bed.start(GUEST_COMMAND.replace("@KIOSK@", str(KIOSK)))
        guest = Guest(bed, workdir)
        chip = bed.wait_for_file("chip-name", timeout=BOOT_TIMEOUT).read_text().strip()
        checks["chip"] = chip
        guest.wait_until("kiosk to read the line", lambda: f"gpio: trigger 'button' reads {chip} line 1:" in guest.log(), timeout=240)
        # The watcher connects after the socket appears; in a starved guest red's item_started
        # can come before it (CI, 2026-11-28: 4 minutes of item 0's time events, no start).
        # Item 0 is red, the only item, until a trigger fires.
        guest.wait_until("red to play and the watcher to pass it on",
                         lambda: any((e.get("event") == "item_started" and "red" in e.get("path", ""))
                                     or (e.get("event") == "time" and e.get("item") == 0) for e in guest.events()),
                         timeout=240)
        checks["probe"] = (workdir / "probe.txt").read_text(errors="replace")

        # A press: one fire; its release (rising) none.
        guest.pull("pull-down", quiet_first=False)
        guest.wait_fires(1)
        guest.wait_until("green to start", lambda: guest.greens() >= 1)
        guest.pull("pull-up", quiet_first=False)
        # A second press after quiet: a second fire.
        guest.pull("pull-down")
        guest.wait_fires(2)
        guest.wait_until("green to start again", lambda: guest.greens() >= 2)
        guest.pull("pull-up")
        # A bounce burst, ending pressed: seven toggles, four falling, inside the window.
        burst = guest.pull("pull-down", "pull-up", "pull-down", "pull-up", "pull-down", "pull-up", "pull-down")
        readings = uptimes(burst)
        # The debounce rule counts quiet from the last edge: a burst is bounces while each gap
        # is shorter than the window, however long the whole (CI's loaded guest took 1.17 s
        # for the seven writes; each gap is what the premise needs).
        checks["burst_gaps"] = [b - a for a, b in zip(readings[1:], readings[2:])]
        guest.wait_fires(3)
        # Its item started before the marker fires, so the two requests never meet in one turn.
        guest.wait_until("green's third start", lambda: guest.greens() >= 3)
        # The marker: released and pressed again after quiet. Every fire of the burst precedes it.
        guest.pull("pull-up")
        guest.pull("pull-down")
        guest.wait_fires(4)
        guest.wait_until("green's fourth start", lambda: guest.greens() >= 4)
        checks["fires_at_marker"] = guest.fires()
        checks["greens_at_marker"] = guest.greens()
        checks["fire_lines"] = [l for l in guest.log().splitlines() if "gpio: trigger 'button' from" in l]

        # The chip kiosk-late appears: opened on a retry, and its line fires `late`.
        guest.run(MAKE_LATE_CHIP)
        guest.wait_until("kiosk to open the late chip", lambda: "gpio: trigger 'late' reads kiosk-late line 0 now" in guest.log(),
                         timeout=120)
        guest.run('echo pull-up > "$(cat late-pull-path)"\n')
        guest.wait_fires(1, trigger="late")

        # Unplugged while held: one more error line for `late`; plugged again: read again.
        def late_errors() -> list[str]:
            return [l for l in guest.log().splitlines() if " error " in l and "gpio: trigger 'late'" in l]
        guest.run(UNPLUG_LATE_CHIP)
        guest.wait_until("kiosk to say the late chip went", lambda: len(late_errors()) >= 2)
        guest.run(REPLUG_LATE_CHIP)
        guest.wait_until("kiosk to open the late chip again",
                         lambda: guest.log().count("gpio: trigger 'late' reads kiosk-late line 0 now") >= 2, timeout=120)
        guest.run('echo pull-up > "$(cat late-pull-path)"\n')
        guest.wait_fires(2, trigger="late")
        checks["late_errors"] = late_errors()

        # A line whose trigger runs a command of the control table: the screen goes dark.
        guest.run('echo pull-down > "$(cat dark-pull-path)"\n')
        guest.wait_fires(1, trigger="dark")
        guest.wait_until("the display_power event", lambda: any(e.get("event") == "display_power" and e.get("on") is False
                                                                for e in guest.events()))
        checks["dark_lines"] = [l for l in guest.log().splitlines() if "trigger 'dark'" in l]

        (workdir / "finish").touch()
        bed.wait(timeout=120)
        checks["rc"] = (workdir / "kiosk.rc").read_text().strip()
        checks["log"] = guest.log()
        checks["fires_at_end"] = guest.fires()
    return checks


def test_probe_lists_the_chip(results):
    chip = results["chip"]
    assert re.search(rf"^  {chip} \[gpio-sim[^\]]*\] 4 lines \(/dev/{chip}\)$", results["probe"], re.M), results["probe"]


def test_kiosk_reads_the_line_and_says_so(results):
    assert f"gpio: trigger 'button' reads {results['chip']} line 1: falling edge, debounce 1.0 s" in results["log"]


def test_a_chip_not_there_is_one_error_line_then_quiet_retries(results):
    # Several retries passed before the chip was made (it was opened on one): still one line.
    missing = [l for l in results["log"].splitlines() if "gpio: trigger 'late' (kiosk-late line 0)" in l and "no such chip" in l]
    assert len(missing) == 1, missing
    assert "trying again every 5 s" in missing[0], missing
    assert results["late_errors"][0] == missing[0], results["late_errors"]


def test_a_chip_taken_away_is_one_error_line_and_is_read_again_when_back(results):
    errors = results["late_errors"]
    assert len(errors) == 2, errors  # the chip missing at start, then its removal
    assert "gpio: trigger 'late' (kiosk-late line 0): kiosk-late: the chip went away" in errors[1], errors
    assert "trying again every 5 s" in errors[1], errors


def test_each_press_fires_once_and_a_bounce_burst_once(results):
    # Three presses and a burst: four fires, each a falling edge, none from a release.
    assert results["fires_at_marker"] == 4, results["fire_lines"]
    assert all("(falling edge)" in l for l in results["fire_lines"]), results["fire_lines"]
    assert results["greens_at_marker"] == 4, "each fire started the trigger's item"
    assert results["fires_at_end"] == 4, "nothing fired after the marker"


def test_the_burst_was_inside_the_window(results):
    # The test's own premise: every toggle of the burst within the window of the one before it
    # (otherwise they would be presses, not bounces).
    assert len(results["burst_gaps"]) == 6 and max(results["burst_gaps"]) < DEBOUNCE, results["burst_gaps"]


def test_kiosk_stops_cleanly(results):
    assert results["rc"] == "0", results["log"][-2000:]


def test_a_line_can_run_a_command_of_the_control_table(results):
    """`command: [display_power, "off"]`: the GPIO line reaches the command as the socket would
    (the display_power event came), one line saying so and no refusal."""
    lines = results["dark_lines"]
    assert any('gpio: trigger \'dark\' from' in l and '{"command":["display_power","off"]}' in l for l in lines), lines
    assert not any(" warning " in l for l in lines), lines
