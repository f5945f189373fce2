"""In a bed guest with vkms loaded: its card, found by device name (vkms is a platform or faux
device, with no driver link to follow). Without one the guest writes what /sys/class/drm holds
to `work`/no-vkms and exits 3; the host's test fails with it."""
import os
import sys
from pathlib import Path


def vkms_card(work: Path) -> str:
    cards = [c for c in sorted(Path("/sys/class/drm").glob("card[0-9]")) if (c / "device").resolve().name == "vkms"]
    if not cards:
        (work / "no-vkms").write_text(" ".join(os.listdir("/sys/class/drm")))
        sys.exit(3)
    return "/dev/dri/" + cards[0].name
