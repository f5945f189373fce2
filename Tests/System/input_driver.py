"""Runs in the VM bed's guest for Tests/System/test_input.py: makes synthetic input devices
with uinput (ioctl + struct: the guest has no python-evdev) and moves their fingers and keys
on the host's command.

Started in the work directory with Debian's python3. It makes a multi-touch touchscreen
("touch": protocol B slots, INPUT_PROP_DIRECT, 0..4095 on both axes) and a keyboard ("keys"),
writes devices-ready, then polls for cmd-NNNN files (one command line each, numbered from 1)
and answers each with done-NNNN: JSON with the guest's CLOCK_MONOTONIC when it finished
(`t`, the clock kiosk's stats use) and when it began (`t0`), and `error` if it failed. It ends when driver-quit appears.

Commands: create NAME touch|keys, destroy NAME, tap X Y, stroke X0 Y0 X1 Y1 SECONDS STEPS
(positions as fractions of the panel), key NAME KEY_X, grabbed NAME KEY_X (press while reading
the node: how many bytes a second reader saw), flood MOVES (SYN_DROPPED, see `flood`), run
PROGRAM ARGS... (a command in the guest, such as `kiosk ctl`: its status and output).
"""
import fcntl
import json
import os
import signal
import struct
import subprocess
import time

UI_SET_EVBIT, UI_SET_KEYBIT, UI_SET_ABSBIT, UI_SET_PROPBIT = 0x40045564, 0x40045565, 0x40045567, 0x4004556e
UI_DEV_CREATE, UI_DEV_DESTROY = 0x5501, 0x5502
EV_SYN, EV_KEY, EV_ABS = 0, 1, 3
ABS_X, ABS_Y, ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID = 0, 1, 0x2f, 0x35, 0x36, 0x39
BTN_TOUCH, INPUT_PROP_DIRECT = 0x14a, 1
# KEY_F1 (59): the key a Raspberry Pi's gpio-key overlay gives a button in the README (test_triggers.py).
KEYS = {"KEY_SPACE": 57, "KEY_RIGHT": 106, "KEY_LEFT": 105, "KEY_N": 49, "KEY_P": 25, "KEY_M": 50, "KEY_F1": 59}
RAW_MAX = 4095
devices = {}     # name -> (uinput fd, event node)
tracking = [100]


def node_of(name):
    for _ in range(200):
        for d in os.listdir("/sys/class/input"):
            p = "/sys/class/input/%s/device/name" % d
            if d.startswith("event") and os.path.exists(p) and open(p).read().strip() == name \
                    and os.path.exists("/dev/input/" + d):
                return "/dev/input/" + d
        time.sleep(0.02)
    raise RuntimeError("no event node for " + name)


def create(name, kind):
    fd = os.open("/dev/uinput", os.O_WRONLY | os.O_NONBLOCK)
    absmax, absmin = [0] * 64, [0] * 64
    fcntl.ioctl(fd, UI_SET_EVBIT, EV_KEY)
    if kind == "touch":
        fcntl.ioctl(fd, UI_SET_EVBIT, EV_ABS)
        fcntl.ioctl(fd, UI_SET_KEYBIT, BTN_TOUCH)
        fcntl.ioctl(fd, UI_SET_PROPBIT, INPUT_PROP_DIRECT)
        for axis, top in ((ABS_X, RAW_MAX), (ABS_Y, RAW_MAX), (ABS_MT_SLOT, 4), (ABS_MT_POSITION_X, RAW_MAX),
                          (ABS_MT_POSITION_Y, RAW_MAX), (ABS_MT_TRACKING_ID, 65535)):
            fcntl.ioctl(fd, UI_SET_ABSBIT, axis)
            absmax[axis] = top
    else:
        for code in KEYS.values():
            fcntl.ioctl(fd, UI_SET_KEYBIT, code)
    os.write(fd, struct.pack("80sHHHHi", name.encode(), 3, 0x1234, 0x5678, 1, 0)
             + struct.pack("64i", *absmax) + struct.pack("64i", *absmin) + bytes(4 * 64 * 2))
    fcntl.ioctl(fd, UI_DEV_CREATE)
    devices[name] = (fd, node_of(name))
    return {"node": devices[name][1]}


def report(*events):
    """The bytes of one report: the events, then SYN_REPORT."""
    return b"".join(struct.pack("llHHi", 0, 0, etype, code, value)
                    for etype, code, value in events + ((EV_SYN, 0, 0),))


def emit(name, *events):
    os.write(devices[name][0], report(*events))


def raw(fraction):
    return int(round(fraction * RAW_MAX))


def down_report(x, y):
    tracking[0] += 1
    return report((EV_ABS, ABS_MT_SLOT, 0), (EV_ABS, ABS_MT_TRACKING_ID, tracking[0]),
                  (EV_ABS, ABS_MT_POSITION_X, raw(x)), (EV_ABS, ABS_MT_POSITION_Y, raw(y)),
                  (EV_KEY, BTN_TOUCH, 1), (EV_ABS, ABS_X, raw(x)), (EV_ABS, ABS_Y, raw(y)))


def move_report(x, y):
    return report((EV_ABS, ABS_MT_POSITION_X, raw(x)), (EV_ABS, ABS_MT_POSITION_Y, raw(y)),
                  (EV_ABS, ABS_X, raw(x)), (EV_ABS, ABS_Y, raw(y)))


def up_report():
    return report((EV_ABS, ABS_MT_TRACKING_ID, -1), (EV_KEY, BTN_TOUCH, 0))


def down(name, x, y):
    os.write(devices[name][0], down_report(x, y))


def move(name, x, y):
    os.write(devices[name][0], move_report(x, y))


def up(name):
    os.write(devices[name][0], up_report())


def stroke(name, x0, y0, x1, y1, seconds, steps):
    """A finger from (x0, y0) to (x1, y1) in `steps` moves over `seconds`. With seconds 0 the
    whole stroke is one write: the kernel stamps its reports microseconds apart, so gestures
    with a time limit (a tap's 0.35 s, a swipe's 0.6 s) are recognised however long a starved
    guest takes to run this script between two writes."""
    points = [(x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps) for i in range(1, steps + 1)]
    if seconds == 0:
        os.write(devices[name][0], down_report(x0, y0) + b"".join(move_report(*p) for p in points) + up_report())
        return
    down(name, x0, y0)
    for point in points:
        time.sleep(seconds / steps)
        move(name, *point)
    up(name)


def key(name, code_name):
    emit(name, (EV_KEY, KEYS[code_name], 1))
    time.sleep(0.03)
    emit(name, (EV_KEY, KEYS[code_name], 0))


def grabbed(name, code_name):
    """Press a key while reading the device ourselves: a grab by kiosk leaves us nothing."""
    reader = os.open(devices[name][1], os.O_RDONLY | os.O_NONBLOCK)
    try:
        key(name, code_name)
        time.sleep(0.3)
        try:
            return {"seen_bytes": len(os.read(reader, 4096))}
        except BlockingIOError:
            return {"seen_bytes": 0}
    finally:
        os.close(reader)


def flood(moves):
    """A finger down that kiosk sees, then, with kiosk stopped, more moves than the kernel
    buffers for it: kiosk gets SYN_DROPPED when it runs again. The finger lifts after."""
    pid = int(open("kiosk.pid").read())
    down("touch", 0.5, 0.4)
    time.sleep(0.3)
    os.kill(pid, signal.SIGSTOP)
    try:
        for i in range(moves):
            move("touch", 0.3 + 0.4 * (i % 2), 0.4)
    finally:
        os.kill(pid, signal.SIGCONT)
    time.sleep(0.3)
    up("touch")
    return {}


def run(words):
    op, args = words[0], words[1:]
    if op == "create":
        return create(args[0], args[1])
    if op == "destroy":
        fd, _ = devices.pop(args[0])
        fcntl.ioctl(fd, UI_DEV_DESTROY)
        os.close(fd)
    elif op == "tap":
        # Down and up in one write (see stroke): a tap, whatever the guest's speed.
        x, y = float(args[0]), float(args[1])
        os.write(devices["touch"][0], down_report(x, y) + up_report())
    elif op == "stroke":
        x0, y0, x1, y1, seconds = map(float, args[:5])
        stroke("touch", x0, y0, x1, y1, seconds, int(args[5]))
    elif op == "key":
        key(args[0], args[1])
    elif op == "grabbed":
        return grabbed(args[0], args[1])
    elif op == "flood":
        return flood(int(args[0]))
    elif op == "run":
        done = subprocess.run(args, capture_output=True, text=True, timeout=120)
        return {"rc": done.returncode, "stdout": done.stdout, "stderr": done.stderr}
    else:
        raise ValueError("unknown command " + op)
    return {}


def main():
    create("touch", "touch")
    create("keys", "keys")
    open("devices-ready", "w").write(json.dumps({n: d[1] for n, d in devices.items()}))
    n = 1
    while not os.path.exists("driver-quit"):
        name = "cmd-%04d" % n
        if not os.path.exists(name):
            time.sleep(0.01)
            continue
        began = time.clock_gettime(time.CLOCK_MONOTONIC)
        try:
            result = run(open(name).read().split())
        except Exception as e:
            result = {"error": repr(e)}
        result["t"] = time.clock_gettime(time.CLOCK_MONOTONIC)
        result["t0"] = began
        open("done-%04d.tmp" % n, "w").write(json.dumps(result))
        os.rename("done-%04d.tmp" % n, "done-%04d" % n)
        n += 1


if __name__ == "__main__":
    main()
