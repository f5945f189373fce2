"""In a bed guest with vkms loaded, what its test scripts share: the card, found by device name (vkms is a platform or faux
device, with no driver link to follow). Without one the guest writes what /sys/class/drm holds
to `work`/no-vkms and exits 3; the host's test fails with it. And a stats file read while
kiosk writes it."""
import json
import os
import sys
from pathlib import Path


def vkms_card(work: Path) -> str:
    cards = [c for c in sorted(Path("/sys/class/drm").glob("card[0-9]")) if (c / "device").resolve().name == "vkms"]
    if not cards:
        (work / "no-vkms").write_text(" ".join(os.listdir("/sys/class/drm")))
        sys.exit(3)
    return "/dev/dri/" + cards[0].name


def stats_records(path: str) -> list[dict]:
    """The stats file's records so far (none before it exists), the line being written left out."""
    records = []
    for line in open(path) if os.path.exists(path) else []:
        try:
            records.append(json.loads(line))
        except ValueError:
            pass   # the line being written
    return records
