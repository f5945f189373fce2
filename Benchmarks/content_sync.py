"""Content sync's numbers for BENCHMARKS.md ("Content sync"), on loopback with the system tests'
server (Tests/System/http_media_server.py) and `kiosk sync --once --json` (debug build):
bytes fetched again after the server is killed at 50% of 200 MB, 500 files + a 50 MB file
(first sync, one changed file of each size, a pass with nothing new), 500 files of 4 MB (2 GB:
changing one fetches only it), and max_rate 1M over 30 s.

    python3 Benchmarks/content_sync.py [NAME...]   # a few minutes; needs ~4.5 GB in /tmp
                                                   # NAME: killed_at_half many_files two_gigabytes max_rate
    python3 Benchmarks/content_sync.py --during-playback [KIOSK]   # 2 GB fetched while a clip plays

--during-playback: `kiosk run` (the release build unless KIOSK is given) plays a 1080p30 clip on
a headless 1280x720 screen flipping on a 60 Hz vblank grid for 60 s, once while its sync thread
fetches, hashes, fsyncs and switches a 2 GB set (4 x 500 MB) from the loopback server, once
without sync: the frames dropped in each (issue 21: no extra dropped frames). Needs ~4.5 GB.
"""
import shutil
import sys
import time
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "System"))
from content_sync_support import Box, Server, make_manifest, write_media  # noqa: E402


def killed_at_half(base: Path):
    size = 200_000_000
    root = base / "www"
    write_media(root / "media", {"big.mp4": size})
    with Server(root, "--etag") as probe:
        port = probe.port
    manifest = make_manifest(root, f"http://127.0.0.1:{port}/media/")
    box = Box(base, f"http://127.0.0.1:{port}/manifest.json")
    with Server(root, "--etag", "--die-after", (root / "manifest.json").stat().st_size + size // 2, port=port):
        box.sync()
    held = (box.store / "partial" / manifest["files"][0]["sha256"]).stat().st_size
    with Server(root, "--etag", port=port):
        resumed = box.sync()
    fetched = resumed.report["fetched_bytes"]
    print(f"killed at 50% of 200 MB: {held} bytes kept, the resume fetched {fetched} "
          f"({fetched - (size - held)} bytes again) in {resumed.seconds:.2f} s: {resumed.report['outcome']}")


def many_files(base: Path):
    root = base / "www"
    write_media(root / "media", {f"clip{i:03}.mp4": 400_000 for i in range(500)})
    write_media(root / "media", {"big.mp4": 50_000_000})
    with Server(root, "--etag") as server:
        make_manifest(root, server.url("media/"))
        box = Box(base, server.url("manifest.json"))
        first = box.sync()
        print(f"501 files, 250 MB, first sync: {first.seconds:.2f} s, {first.report['fetched_bytes']} bytes")
        for name, size in (("big.mp4", 50_000_000), ("clip250.mp4", 400_000)):
            write_media(root / "media", {name: size})
            make_manifest(root, server.url("media/"))
            changed = box.sync()
            print(f"{name} changed ({size} bytes): {changed.seconds:.2f} s, {changed.report['fetched_bytes']} bytes fetched, "
                  f"{changed.report['outcome']}")
        same = box.sync()
        print(f"nothing new (304): {same.seconds:.2f} s, {same.report['outcome']}")


def two_gigabytes(base: Path):
    """Issue 21's "500 files, 2 GB: changing one fetches only it": 500 files of 4 MB of random
    bytes, a first sync, then one file's bytes changed and the manifest made again."""
    root = base / "www"
    write_media(root / "media", {f"clip{i:03}.mp4": 4_000_000 for i in range(500)})
    with Server(root, "--etag") as server:
        made = time.monotonic()
        make_manifest(root, server.url("media/"))
        made = time.monotonic() - made
        box = Box(base, server.url("manifest.json"))
        first = box.sync()
        print(f"500 files, 2 GB, first sync: {first.seconds:.2f} s, {first.report['fetched_bytes']} bytes, "
              f"{first.report['outcome']} (kiosk manifest of the 500: {made:.2f} s)")
        write_media(root / "media", {"clip250.mp4": 4_000_000})
        make_manifest(root, server.url("media/"))
        changed = box.sync()
        objects = box.store / "objects"
        print(f"clip250.mp4 changed (4,000,000 bytes) among the 500: {changed.seconds:.2f} s, "
              f"{changed.report['fetched_bytes']} bytes fetched, {changed.report['outcome']}; "
              f"{len(list(objects.iterdir()))} objects, {sum(f.stat().st_size for f in objects.iterdir())} bytes in objects/")
        same = box.sync()
        print(f"nothing new (304): {same.seconds:.2f} s, {same.report['outcome']}")


def max_rate(base: Path):
    root = base / "www"
    write_media(root / "media", {"a.mp4": 30 * 1_048_576})
    with Server(root) as server:
        make_manifest(root, server.url("media/"))
        result = Box(base, server.url("manifest.json"), max_rate="1M").sync()
    rate = result.report["fetched_bytes"] / result.report["seconds"]
    print(f"max_rate 1M: 30 MiB in {result.report['seconds']:.2f} s = {rate:.0f} B/s, {rate / 1_048_576:.3f}x the limit")


def during_playback(base: Path, kiosk: Path):
    import json
    import subprocess
    root = base / "www"
    media = root / "media"
    media.mkdir(parents=True)
    import os
    for i in range(4):
        # Sparse but each one different: a random head, so four objects are fetched and hashed.
        with open(media / f"part{i}.mp4", "wb") as f:
            f.write(os.urandom(65536))
            f.truncate(500_000_000)
    clip = base / "clip.mp4"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=20",
                    "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", str(clip)], check=True)
    with Server(root, "--etag") as server:
        make_manifest(root, server.url("media/"))
        results = {}
        for name in ("with a 2 GB sync", "without sync"):
            conf, stats = base / f"{name[:4]}.conf", base / f"{name[:4]}.jsonl"
            sync = (f"sync:\n  manifest: {server.url('manifest.json')}\n  dir: {base / 'store'}\n  min_free: 1M\n"
                    if name.startswith("with") else "")
            conf.write_text(f"input: {{enabled: false}}\nplayback: {{loop: playlist}}\nitems: ['{clip}']\n{sync}")
            result = subprocess.run([str(kiosk), "run", "--config", str(conf), "--display", "headless:1280x720@60:vblank",
                                     "--audio", "none", "--control-socket", "none", "--stats-file", str(stats), "--duration", "60"],
                                    capture_output=True, text=True, timeout=300)
            records = [json.loads(line) for line in stats.read_text().splitlines()]
            switched = [line for line in result.stderr.splitlines() if "content sync" in line and ("switch" in line or "fail" in line)]
            results[name] = (records[-1]["dropped"], len(records), switched[:2])
            print(f"{name}: {len(records)} frames shown in 60 s, {records[-1]['dropped']} dropped; {switched[:2]}", flush=True)
        store = sum(f.stat().st_size for f in (base / "store" / "objects").iterdir()) if (base / "store" / "objects").exists() else 0
        print(f"store after the sync: {store} bytes in objects/")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--during-playback":
        folder = Path(tempfile.mkdtemp(prefix="kiosk-sync-bench-"))
        kiosk = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).resolve().parents[1] / ".build" / "release" / "kiosk"
        try:
            during_playback(folder, kiosk)
        finally:
            shutil.rmtree(folder)
        sys.exit(0)
    chosen = [m for m in (killed_at_half, many_files, two_gigabytes, max_rate) if len(sys.argv) < 2 or m.__name__ in sys.argv[1:]]
    for measure in chosen:
        folder = Path(tempfile.mkdtemp(prefix="kiosk-sync-bench-"))
        try:
            measure(folder)
        finally:
            shutil.rmtree(folder)
