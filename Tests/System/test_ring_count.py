"""The ring's shape, counted on the tree by ring_count.py (issue 31): a new command backed by an
existing service costs at most 3 source files, a property at most 2, Sources/kiosk has at most 20
files, no video output is downcast, the targets import each other without a cycle, an input key
is spelled in at most 3 files, and no folders of the pure targets use each other's types in a
cycle."""
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_the_ring_keeps_its_counts():
    result = subprocess.run([sys.executable, str(HERE / "ring_count.py")], capture_output=True, text=True, timeout=120)
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = {line[17:].split(":")[0]: line[:16].strip() for line in result.stdout.splitlines() if line[:2] in ("ok", "ov")}
    for measure in ("files naming the least-named command", "files naming the least-named property", "Sources/kiosk files",
                    "downcasts of an output", "import cycles among targets", "README lines",
                    "commit hashes in the README", "files spelling the least-spelled input key",
                    "folders of the pure targets in one reference cycle"):
        assert lines.get(measure) == "ok", (measure, result.stdout)
    # sync_now, the example of a command backed by a service: its row, its case, its answer.
    files = subprocess.run([sys.executable, str(HERE / "ring_count.py"), "--files", "command", "sync_now"],
                           capture_output=True, text=True, check=True).stdout.split()
    assert len(files) <= 3, files
