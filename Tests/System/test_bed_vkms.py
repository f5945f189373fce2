"""The bed's second kernel (Bed(kernel="7.3"), deploy/vm/bed-kernel): vkms and gpio-sim work.

1. vkms with overlays and writeback beside bochs: the guest reads the cards through libdrm
   (ctypes, the host's libdrm2 over 9p) and writes what it found to a JSON file: which drivers
   the cards belong to; vkms's planes, their types and formats; its connectors before and after
   the client asks for writeback connectors (DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, which needs
   DRM_CLIENT_CAP_ATOMIC first). An overlay plane must take YU12 (YUV420), NV12 and ARGB8888.
2. The same vkms writes back what its CRTC shows: one atomic commit puts an orange buffer on the
   primary plane and a second buffer on the writeback connector; after its out fence signals,
   the second holds orange too (in the middle and at the four corners).
3. gpio-sim through configfs: a chip with 4 lines is made in /sys/kernel/config/gpio-sim; line 2
   is requested as an input through /dev/gpiochipN (the GPIO v2 uAPI, ioctls from python3) and its
   simulated pull is set up, down, up in sysfs; each value read back must follow it.
4. A module asked for with parameters that the kernel's initramfs lacks (vkms on the host's
   6.1) fails the guest's setup with setup-error naming it; the command never runs.

When the 7.3 kernel cannot be made (no network on a first run, say), Bed.start raises BedError
with bed-kernel's reason: the tests fail with it, they do not skip.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "deploy" / "vm"))

from bed import Bed, GuestSetupError  # noqa: E402

# The start of the programs run by the host's python3 inside the guest: libdrm through ctypes.
# Structures as in xf86drmMode.h / xf86drm.h (only their leading fields where that is enough).
DRM_CTYPES = r'''
import ctypes, fcntl, glob, json, mmap, os, select, struct, sys
drm = ctypes.CDLL("libdrm.so.2")
u32p = ctypes.POINTER(ctypes.c_uint32)

class Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_int), ("minor", ctypes.c_int), ("patch", ctypes.c_int),
                ("name_len", ctypes.c_int), ("name", ctypes.c_char_p), ("date_len", ctypes.c_int),
                ("date", ctypes.c_char_p), ("desc_len", ctypes.c_int), ("desc", ctypes.c_char_p)]
class Res(ctypes.Structure):
    _fields_ = [("count_fbs", ctypes.c_int), ("fbs", u32p), ("count_crtcs", ctypes.c_int),
                ("crtcs", u32p), ("count_connectors", ctypes.c_int), ("connectors", u32p),
                ("count_encoders", ctypes.c_int), ("encoders", u32p)] + \
               [(n, ctypes.c_uint32) for n in ("min_w", "max_w", "min_h", "max_h")]
class ModeInfo(ctypes.Structure):
    _fields_ = [("clock", ctypes.c_uint32)] + [(n, ctypes.c_uint16) for n in (
                "hdisplay", "hsync_start", "hsync_end", "htotal", "hskew",
                "vdisplay", "vsync_start", "vsync_end", "vtotal", "vscan")] + \
               [("vrefresh", ctypes.c_uint32), ("flags", ctypes.c_uint32),
                ("type", ctypes.c_uint32), ("name", ctypes.c_char * 32)]
class Connector(ctypes.Structure):
    _fields_ = [("connector_id", ctypes.c_uint32), ("encoder_id", ctypes.c_uint32),
                ("connector_type", ctypes.c_uint32), ("connector_type_id", ctypes.c_uint32),
                ("connection", ctypes.c_int), ("mm_width", ctypes.c_uint32),
                ("mm_height", ctypes.c_uint32), ("subpixel", ctypes.c_int),
                ("count_modes", ctypes.c_int), ("modes", ctypes.POINTER(ModeInfo))]
class PlaneRes(ctypes.Structure):
    _fields_ = [("count_planes", ctypes.c_uint32), ("planes", u32p)]
class Plane(ctypes.Structure):
    _fields_ = [("count_formats", ctypes.c_uint32), ("formats", u32p), ("plane_id", ctypes.c_uint32)]
class Props(ctypes.Structure):
    _fields_ = [("count_props", ctypes.c_uint32), ("props", u32p),
                ("prop_values", ctypes.POINTER(ctypes.c_uint64))]
class Prop(ctypes.Structure):
    _fields_ = [("prop_id", ctypes.c_uint32), ("flags", ctypes.c_uint32), ("name", ctypes.c_char * 32)]
for fn, res in (("drmGetVersion", Version), ("drmModeGetResources", Res),
                ("drmModeGetConnector", Connector), ("drmModeGetPlaneResources", PlaneRes),
                ("drmModeGetPlane", Plane), ("drmModeObjectGetProperties", Props),
                ("drmModeGetProperty", Prop)):
    getattr(drm, fn).restype = ctypes.POINTER(res)
drm.drmModeObjectGetProperties.argtypes = [ctypes.c_int, ctypes.c_uint32, ctypes.c_uint32]
drm.drmModeAtomicAlloc.restype = ctypes.c_void_p
drm.drmModeAtomicAddProperty.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint64]
drm.drmModeAtomicCommit.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p]
PLANE, CRTC, CONNECTOR = 0xeeeeeeee, 0xcccccccc, 0xc0c0c0c0
CAP_UNIVERSAL_PLANES, CAP_ATOMIC, CAP_WRITEBACK = 2, 3, 5
WRITEBACK = 18  # DRM_MODE_CONNECTOR_WRITEBACK

def properties(fd, obj, kind):
    """{name: (property id, value)} of a KMS object."""
    got = drm.drmModeObjectGetProperties(fd, obj, kind).contents
    return {drm.drmModeGetProperty(fd, got.props[i]).contents.name.decode(): (got.props[i], got.prop_values[i])
            for i in range(got.count_props)}

def open_card(driver):
    for path in sorted(glob.glob("/dev/dri/card*")):
        fd = os.open(path, os.O_RDWR)
        if drm.drmGetVersion(fd).contents.name.decode() == driver:
            return fd
        os.close(fd)
    raise SystemExit(f"no {driver} card")
'''

DRM_PROBE = DRM_CTYPES + r'''

def fourcc(v):
    return bytes((v >> s) & 0xff for s in (0, 8, 16, 24)).decode("ascii", "replace")

def connector_types(fd):
    res = drm.drmModeGetResources(fd).contents
    return [drm.drmModeGetConnector(fd, res.connectors[i]).contents.connector_type
            for i in range(res.count_connectors)]

cards = {}
for path in sorted(glob.glob("/dev/dri/card*")):
    fd = os.open(path, os.O_RDWR)
    name = drm.drmGetVersion(fd).contents.name.decode()
    card = cards[path] = {"driver": name}
    if name == "vkms":
        card["connectors_before_cap"] = connector_types(fd)
        assert drm.drmSetClientCap(fd, CAP_UNIVERSAL_PLANES, 1) == 0
        card["atomic_cap"] = drm.drmSetClientCap(fd, CAP_ATOMIC, 1)
        card["writeback_cap"] = drm.drmSetClientCap(fd, CAP_WRITEBACK, 1)
        card["connectors_after_cap"] = connector_types(fd)
        planes = []
        pres = drm.drmModeGetPlaneResources(fd).contents
        for i in range(pres.count_planes):
            plane = drm.drmModeGetPlane(fd, pres.planes[i]).contents
            named = {name: value for name, (_, value) in properties(fd, plane.plane_id, PLANE).items()}
            planes.append({"id": plane.plane_id, "type": named.get("type"),
                           "properties": sorted(named),
                           "formats": [fourcc(plane.formats[j]) for j in range(plane.count_formats)]})
        card["planes"] = planes
    os.close(fd)
json.dump(cards, sys.stdout, indent=1)
'''


def test_vkms_overlays_and_writeback_beside_bochs(tmp_path: Path) -> None:
    (tmp_path / "drm_probe.py").write_text(DRM_PROBE)
    with Bed(kernel="7.3", modules=["vkms enable_overlay=1 enable_writeback=1"],
             workdir=tmp_path) as bed:
        rc = bed.run("python3 drm_probe.py > cards.json", timeout=300)
        assert rc == 0, bed.console_log()[-3000:]
    cards = json.loads((tmp_path / "cards.json").read_text())
    drivers = sorted(card["driver"] for card in cards.values())
    assert drivers == ["bochs-drm", "vkms"], cards
    vkms = next(card for card in cards.values() if card["driver"] == "vkms")
    WRITEBACK = 18  # DRM_MODE_CONNECTOR_WRITEBACK (drm_mode.h)
    assert vkms["atomic_cap"] == 0 and vkms["writeback_cap"] == 0, vkms
    assert WRITEBACK not in vkms["connectors_before_cap"], vkms
    assert WRITEBACK in vkms["connectors_after_cap"], vkms
    OVERLAY, PRIMARY = 0, 1
    types = [plane["type"] for plane in vkms["planes"]]
    assert types.count(PRIMARY) == 1 and types.count(OVERLAY) >= 1, vkms["planes"]
    overlays = [plane for plane in vkms["planes"] if plane["type"] == OVERLAY]
    wanted = {"YU12", "NV12", "AR24"}  # YUV420, NV12, ARGB8888
    assert any(wanted <= set(plane["formats"]) for plane in overlays), overlays
    # What README.md says vkms lacks: kiosk must not count on plane zpos, alpha or blending.
    assert not any({"zpos", "alpha", "pixel blend mode"} & set(p["properties"]) for p in overlays), overlays


# One atomic commit on vkms: the primary plane shows a dumb buffer filled with one colour, and the
# writeback connector, fed by the same CRTC, is given a second buffer (WRITEBACK_FB_ID) and an out
# fence. Once the fence signals, the second buffer holds what the CRTC made of the first.
WRITEBACK_PROBE = DRM_CTYPES + r'''
COLOUR = int(sys.argv[1], 16)
fd = open_card("vkms")
for cap in (CAP_UNIVERSAL_PLANES, CAP_ATOMIC, CAP_WRITEBACK):
    assert drm.drmSetClientCap(fd, cap, 1) == 0, cap
res = drm.drmModeGetResources(fd).contents
connectors = [drm.drmModeGetConnector(fd, res.connectors[i]).contents for i in range(res.count_connectors)]
screen = next(c for c in connectors if c.connector_type != WRITEBACK)
writeback = next(c for c in connectors if c.connector_type == WRITEBACK)
mode = screen.modes[0]
w, h, crtc = mode.hdisplay, mode.vdisplay, res.crtcs[0]
planes = drm.drmModeGetPlaneResources(fd).contents
primary = next(planes.planes[i] for i in range(planes.count_planes)
               if properties(fd, planes.planes[i], PLANE)["type"][1] == 1)

def iowr(nr, size):
    return (3 << 30) | (size << 16) | (ord("d") << 8) | nr

def dumb_framebuffer(fill):
    create = bytearray(struct.pack("IIIIIIQ", h, w, 32, 0, 0, 0, 0))   # drm_mode_create_dumb
    fcntl.ioctl(fd, iowr(0xB2, 32), create)
    *_, handle, pitch, size = struct.unpack("IIIIIIQ", create)
    where = bytearray(struct.pack("IIQ", handle, 0, 0))                 # drm_mode_map_dumb
    fcntl.ioctl(fd, iowr(0xB3, 16), where)
    pixels = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE,
                       offset=struct.unpack("IIQ", where)[2])
    pixels[:] = struct.pack("<I", fill) * (size // 4)
    fb = ctypes.c_uint32()
    XR24 = 0x34325258
    assert drm.drmModeAddFB2(fd, w, h, XR24, (ctypes.c_uint32 * 4)(handle), (ctypes.c_uint32 * 4)(pitch),
                             (ctypes.c_uint32 * 4)(), ctypes.byref(fb), 0) == 0
    return fb.value, pixels, pitch

shown, _, _ = dumb_framebuffer(COLOUR)
captured, capture, pitch = dumb_framebuffer(0)
blob = ctypes.c_uint32()
assert drm.drmModeCreatePropertyBlob(fd, ctypes.byref(mode), ctypes.sizeof(ModeInfo), ctypes.byref(blob)) == 0
fence = ctypes.c_int32(-1)
request = drm.drmModeAtomicAlloc()
def put(obj, kind, name, value):
    assert drm.drmModeAtomicAddProperty(request, obj, properties(fd, obj, kind)[name][0], value) >= 0, name
put(crtc, CRTC, "MODE_ID", blob.value)
put(crtc, CRTC, "ACTIVE", 1)
put(screen.connector_id, CONNECTOR, "CRTC_ID", crtc)
for name, value in (("FB_ID", shown), ("CRTC_ID", crtc), ("SRC_X", 0), ("SRC_Y", 0), ("SRC_W", w << 16),
                    ("SRC_H", h << 16), ("CRTC_X", 0), ("CRTC_Y", 0), ("CRTC_W", w), ("CRTC_H", h)):
    put(primary, PLANE, name, value)
put(writeback.connector_id, CONNECTOR, "CRTC_ID", crtc)
put(writeback.connector_id, CONNECTOR, "WRITEBACK_FB_ID", captured)
put(writeback.connector_id, CONNECTOR, "WRITEBACK_OUT_FENCE_PTR", ctypes.addressof(fence))
ALLOW_MODESET = 0x400
committed = drm.drmModeAtomicCommit(fd, request, ALLOW_MODESET, None)
signalled = False
if committed == 0 and fence.value >= 0:
    waiting = select.poll()
    waiting.register(fence.value, select.POLLIN)
    signalled = bool(waiting.poll())   # no deadline: the test's wait has one
corners = [struct.unpack_from("<I", capture, y * pitch + x * 4)[0] & 0xFFFFFF
           for x, y in ((0, 0), (w - 1, 0), (w // 2, h // 2), (0, h - 1), (w - 1, h - 1))]
json.dump({"commit": committed, "size": [w, h], "signalled": signalled, "pixels": corners}, sys.stdout)
'''


def test_vkms_writeback_returns_what_the_crtc_shows(tmp_path: Path) -> None:
    (tmp_path / "writeback_probe.py").write_text(WRITEBACK_PROBE)
    colour = 0xFF8000  # orange, XRGB8888: not what an empty or a zeroed buffer holds
    with Bed(kernel="7.3", modules=["vkms enable_overlay=1 enable_writeback=1"],
             workdir=tmp_path) as bed:
        rc = bed.run(f"python3 writeback_probe.py {colour:06x} > writeback.json", timeout=300)
        assert rc == 0, bed.console_log()[-3000:]
    result = json.loads((tmp_path / "writeback.json").read_text())
    assert result["commit"] == 0 and result["signalled"], result
    assert result["pixels"] == [colour] * 5, result

# gpio-sim's configfs interface (Documentation/admin-guide/gpio/gpio-sim.rst); the GPIO v2 uAPI
# (include/uapi/linux/gpio.h): struct gpio_v2_line_request is 592 bytes, gpio_v2_line_values 16.
GPIO_PROBE = r'''
import fcntl, json, os, struct, sys
cfg = "/sys/kernel/config/gpio-sim/bed-chip"
os.mkdir(cfg)
os.mkdir(cfg + "/bank0")
open(cfg + "/bank0/num_lines", "w").write("4")
open(cfg + "/live", "w").write("1")
chip = open(cfg + "/bank0/chip_name").read().strip()
device = open(cfg + "/dev_name").read().strip()
line_dir = f"/sys/devices/platform/{device}/{chip}/sim_gpio2"

def iowr(nr, size):
    return (3 << 30) | (size << 16) | (0xB4 << 8) | nr
GET_LINE, GET_VALUES = iowr(0x07, 592), iowr(0x0E, 16)
FLAG_INPUT = 1 << 2
request = bytearray(592)
struct.pack_into("I", request, 0, 2)              # offsets[0] = line 2
request[256:256 + 9] = b"bed-probe"               # consumer
struct.pack_into("Q", request, 288, FLAG_INPUT)   # config.flags
struct.pack_into("I", request, 560, 1)            # num_lines
with open(f"/dev/{chip}", "rb") as chip_file:
    fcntl.ioctl(chip_file.fileno(), GET_LINE, request)
line_fd = struct.unpack_from("i", request, 588)[0]
seen = []
for pull in ("pull-up", "pull-down", "pull-up"):
    open(line_dir + "/pull", "w").write(pull)
    values = bytearray(struct.pack("QQ", 0, 1))
    fcntl.ioctl(line_fd, GET_VALUES, values)
    seen.append({"pull": pull, "uapi": struct.unpack("QQ", values)[0] & 1,
                 "sysfs": int(open(line_dir + "/value").read())})
os.close(line_fd)
json.dump({"chip": chip, "device": device, "seen": seen}, sys.stdout)
'''


def test_gpio_sim_line_follows_its_pull(tmp_path: Path) -> None:
    (tmp_path / "gpio_probe.py").write_text(GPIO_PROBE)
    with Bed(kernel="7.3", modules=["gpio-sim"], workdir=tmp_path) as bed:
        rc = bed.run("python3 gpio_probe.py > gpio.json", timeout=300)
        assert rc == 0, bed.console_log()[-3000:]
    result = json.loads((tmp_path / "gpio.json").read_text())
    assert result["chip"].startswith("gpiochip"), result
    assert [(s["pull"], s["uapi"], s["sysfs"]) for s in result["seen"]] == [
        ("pull-up", 1, 1), ("pull-down", 0, 0), ("pull-up", 1, 1)], result


def test_a_module_the_kernel_lacks_fails_the_setup_naming_it(tmp_path: Path) -> None:
    # The host's 6.1 has no vkms in its initramfs: the guest must refuse, not boot without it.
    with Bed(modules=["vkms enable_overlay=1"], workdir=tmp_path) as bed:
        with pytest.raises(GuestSetupError, match="module 'vkms'"):
            bed.run("true", timeout=300)
    assert not (tmp_path / "exit-code").exists()


def test_module_entries_and_kernels_are_checked_before_a_boot(tmp_path: Path) -> None:
    bed = Bed(kernel="7.3", modules=["vivid", "vkms enable_overlay=1 enable_writeback=1", "usb"],
              workdir=tmp_path)
    # Bare set names stay on the kernel command line as before; entries with parameters go to
    # guest-modules (written at start()).
    assert bed.kernel_args().endswith(" kiosk.modules=vivid,usb")
    for bad in ("vkms enable_overlay=1;reboot", "vkms *", "", "a,b", "vkms x=$(id)"):
        with pytest.raises(ValueError):
            Bed(modules=[bad], workdir=tmp_path)
    with pytest.raises(ValueError):
        Bed(kernel="7.2", workdir=tmp_path)


def test_an_icount_bed_counts_instructions_on_one_host_thread(tmp_path: Path) -> None:
    # Benchmarks/planes_vkms.py --icount: QEMU has instruction counting only with single-threaded
    # TCG; the shift is checked before a boot.
    plain = " ".join(Bed(workdir=tmp_path).qemu_command(Path("k"), Path("i"), "q"))
    assert "-accel tcg,thread=multi" in plain and "-icount" not in plain
    counted = Bed(workdir=tmp_path, icount=0).qemu_command(Path("k"), Path("i"), "q")
    assert " ".join(counted).count("-accel") == 1
    assert counted[counted.index("-accel") + 1] == "tcg,thread=single"
    assert counted[counted.index("-icount") + 1] == "shift=0,sleep=on"
    for bad in (-1, 11):
        with pytest.raises(ValueError, match="icount"):
            Bed(workdir=tmp_path, icount=bad)
