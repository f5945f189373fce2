"""Content sync (issue 21) through a server killed again and again at random offsets, loopback
only: a multi-file set, http_media_server.py --die-after at a byte offset drawn from a seeded
random.Random (each life of the server ends there, every connection dropped at once, as when it
is killed), `kiosk sync --once` per life, resumed by the next, and a last life uncut. Offsets are
bytes, not times: the cut lands where it was drawn on any machine, however slow.

The seed is new each run (so CI covers other offsets over time) and is in every failure
message; KIOSK_SYNC_KILL_SEED=N runs one again."""
import os
import random

import pytest

from content_sync_support import KIOSK, Box, Server, make_manifest, write_media

KILLS = 6
# Bytes a kill may cost: a transfer cut before its first byte reached the partial is asked for
# again from where the partial ends, so nothing should be fetched twice; 64 KiB per parallel
# transfer per kill is slack for a body chunk curl had not handed over when the socket closed.
SLACK_PER_KILL = 4 * 64 * 1024


@pytest.fixture(autouse=True)
def built():
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")


def held_bytes(box):
    """What the store already holds of the set: whole objects and partials."""
    return sum(f.stat().st_size for folder in ("objects", "partial") if (box.store / folder).exists()
               for f in (box.store / folder).iterdir() if f.is_file())


def test_a_server_killed_at_random_offsets_is_resumed_each_time_and_the_set_is_whole(tmp_path):
    seed = int(os.environ.get("KIOSK_SYNC_KILL_SEED", random.randrange(1 << 32)))
    rng = random.Random(seed)
    why = f"(seed {seed}: KIOSK_SYNC_KILL_SEED={seed} runs it again)"
    sizes = {f"clip{i}.mp4": rng.randrange(200_000, 3_000_000) for i in range(8)}
    total = sum(sizes.values())
    root = tmp_path / "www"
    write_media(root / "media", sizes)
    with Server(root, "--etag") as probe:
        port = probe.port   # the same port for every life: the manifest's URLs name it
    make_manifest(root, f"http://127.0.0.1:{port}/media/")
    manifest_bytes = (root / "manifest.json").stat().st_size
    box = Box(tmp_path, f"http://127.0.0.1:{port}/manifest.json", parallel=4)
    fetched, cuts = 0, []
    for kill in range(KILLS):
        remaining = total - held_bytes(box)
        assert remaining > 0, f"kill {kill}: nothing left to fetch before the cut {why}"
        # At least one body byte, and short of the end: the pass must be cut, never finish.
        cut = rng.randrange(1, max(2, remaining * 2 // 3))
        cuts.append(cut)
        with Server(root, "--etag", "--die-after", manifest_bytes + cut, port=port):
            result = box.sync()
        assert result.returncode == 1, f"kill {kill} at {cut} of {remaining} bytes left: {result.stderr} {why}"
        assert box.current() is None, f"kill {kill}: switched to a set not whole {why}"
        assert "resumed next time" in result.stderr, f"kill {kill}: {result.stderr!r} {why}"
        fetched += result.report["fetched_bytes"]
    with Server(root, "--etag", port=port):
        last = box.sync()
    assert last.returncode == 0 and last.report["outcome"] == "switched", f"{last.stderr} {why}"
    fetched += last.report["fetched_bytes"]
    played = dict(box.played())
    assert sorted(played) == sorted(sizes), why
    for name, data in played.items():
        assert data == (root / "media" / name).read_bytes(), f"{name} differs from the server's {why}"
    assert box.partials() == [], why
    again = fetched - total
    print(f"seed {seed}: {KILLS} kills at {cuts} bytes into each life, {total} bytes in {len(sizes)} files; "
          f"fetched {fetched} in all, {again} again")
    assert 0 <= again <= KILLS * SLACK_PER_KILL, f"{again} bytes fetched twice over {KILLS} kills {why}"
