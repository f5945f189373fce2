"""The bed boots a guest again when its kernel hung while booting (deploy/vm/boot_watch.py).

The hang itself (QEMU's TCG losing a timer interrupt, about one boot in 400) cannot be
caused on purpose, so these tests put a stand-in for qemu-system-x86_64 under the real Bed:
its first launches print what the hung kernel printed in CI and never start the command;
a later one behaves like a guest whose command exited 0.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "deploy" / "vm"))

from bed import Bed, BedError  # noqa: E402
from boot_watch import BOOT_ATTEMPTS, died_sign, hung_sign  # noqa: E402

# What CI's hung guest printed (stop 23), then a normal boot's warnings for contrast.
HUNG_CONSOLE = """\
[   22.346614] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
[   22.348623] rcu: \t0-...!: (0 ticks this GP) idle=0e58/0/0x0 softirq=33/33 fqs=0 (false positive?)
[   22.350421] rcu: rcu_preempt kthread timer wakeup didn't happen for 5254 jiffies!
"""
# What the bed's 7.3 kernel printed when it panicked in CI's busy bed (QEMU then exits).
PANIC_CONSOLE = """\
[    1.330069] Oops: int3: 0000 [#1] SMP NOPTI
[    1.331908] RIP: 0010:set_next_task_fair+0x609/0x780
[    1.331908] Kernel panic - not syncing: Fatal exception in interrupt
"""
NORMAL_CONSOLE = """\
[    1.912775] kiosk-vm: warning: insmod snd-aloop.ko failed
kiosk-vm: running guest-command.sh
"""

# Stands in for QEMU: run in the bed's work directory (the bed starts QEMU there).
FAKE_QEMU = """#!{python}
import os, pathlib, signal, sys, time
launches = pathlib.Path("fake-launches")
n = int(launches.read_text()) + 1 if launches.exists() else 1
launches.write_text(str(n))
if n <= {hangs}:
    pathlib.Path("console.log").write_text({hung!r})
    time.sleep(600)
if n <= {hangs} + {panics}:
    pathlib.Path("console.log").write_text({panic!r})
    sys.exit(0)
if n <= {hangs} + {panics} + {segfaults}:
    os.kill(os.getpid(), signal.SIGSEGV)  # before the console's first line, as in CI
if n <= {hangs} + {panics} + {segfaults} + {spins}:
    end = time.monotonic() + 600   # busy with nothing on the console, as CI's stuck guest
    while time.monotonic() < end:
        pass
pathlib.Path("console.log").write_text({normal!r})
pathlib.Path("guest-started").touch()
pathlib.Path("exit-code").write_text("0\\n")
"""


def fake_qemu(directory: Path, hangs: int, panics: int = 0, segfaults: int = 0, spins: int = 0) -> Path:
    path = directory / "fake-qemu"
    path.write_text(FAKE_QEMU.format(python=sys.executable, hangs=hangs, panics=panics,
                                     segfaults=segfaults, spins=spins,
                                     hung=HUNG_CONSOLE, panic=PANIC_CONSOLE, normal=NORMAL_CONSOLE))
    path.chmod(0o755)
    return path


def test_the_stall_line_is_found_and_a_normal_boot_has_none():
    assert hung_sign(HUNG_CONSOLE) == "[   22.346614] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:"
    assert hung_sign(NORMAL_CONSOLE) is None
    assert hung_sign("") is None


def test_a_hung_boot_is_booted_again_and_its_console_kept(tmp_path: Path):
    qemu = fake_qemu(tmp_path, hangs=1)
    work = tmp_path / "work"
    with Bed(workdir=work, qemu=str(qemu)) as bed:
        assert bed.run("true", timeout=60) == 0
    assert (work / "fake-launches").read_text() == "2"
    assert hung_sign((work / "console-hung-1.log").read_text()) is not None
    assert hung_sign((work / "console.log").read_text()) is None


def test_a_kernel_that_always_hangs_is_reported_not_waited_for(tmp_path: Path):
    qemu = fake_qemu(tmp_path, hangs=BOOT_ATTEMPTS)
    work = tmp_path / "work"
    with Bed(workdir=work, qemu=str(qemu)) as bed:
        with pytest.raises(BedError, match=f"hung while booting {BOOT_ATTEMPTS} times"):
            bed.start("true")
        assert not bed.running
    assert (work / "fake-launches").read_text() == str(BOOT_ATTEMPTS)
    assert sorted(p.name for p in work.glob("console-hung-*.log")) == \
        [f"console-hung-{i}.log" for i in range(1, BOOT_ATTEMPTS + 1)]


def test_a_kernel_that_panicked_before_the_command_is_booted_again(tmp_path: Path):
    assert died_sign(PANIC_CONSOLE) == "[    1.331908] Kernel panic - not syncing: Fatal exception in interrupt"
    assert died_sign(NORMAL_CONSOLE) is None and died_sign(HUNG_CONSOLE) is None
    qemu = fake_qemu(tmp_path, hangs=0, panics=1)
    work = tmp_path / "work"
    with Bed(workdir=work, qemu=str(qemu)) as bed:
        assert bed.run("true", timeout=60) == 0
    assert (work / "fake-launches").read_text() == "2"
    assert died_sign((work / "console-hung-1.log").read_text()) is not None
    assert died_sign((work / "console.log").read_text()) is None


def test_a_qemu_that_died_of_a_signal_before_the_command_is_started_again(tmp_path: Path, capsys):
    qemu = fake_qemu(tmp_path, hangs=0, segfaults=1)
    work = tmp_path / "work"
    with Bed(workdir=work, qemu=str(qemu)) as bed:
        assert bed.run("true", timeout=60) == 0
    assert (work / "fake-launches").read_text() == "2"
    assert "QEMU killed by signal 11" in capsys.readouterr().err
    assert (work / "qemu-hung-1.log").exists(), "what the crashed QEMU said is kept"


def test_a_guest_silent_while_qemu_spins_is_booted_again(tmp_path: Path, monkeypatch, capsys):
    """CI's stuck guest: QEMU busy, nothing on the console. The limit is lowered to a second
    of CPU here (90 in the bed); a QEMU that waits without using CPU is not counted."""
    import boot_watch
    monkeypatch.setattr(boot_watch, "SILENT_CPU_SECONDS", 1.0)
    qemu = fake_qemu(tmp_path, hangs=0, spins=1)
    work = tmp_path / "work"
    with Bed(workdir=work, qemu=str(qemu)) as bed:
        assert bed.run("true", timeout=60) == 0
    assert (work / "fake-launches").read_text() == "2"
    assert "no console line after 1 CPU-seconds of QEMU" in capsys.readouterr().err


def test_a_qemu_that_aborts_is_reported_once_not_started_again(tmp_path: Path):
    """SIGABRT is a failed assertion, which fails the same way each time: the caller's wait
    reports it with QEMU's log, at once, instead of three boots later."""
    qemu = tmp_path / "fake-qemu"
    qemu.write_text(f"#!{sys.executable}\nimport os, pathlib, signal\n"
                    "n = pathlib.Path('fake-launches')\n"
                    "n.write_text(str(int(n.read_text()) + 1 if n.exists() else 1))\n"
                    "os.kill(os.getpid(), signal.SIGABRT)\n")
    qemu.chmod(0o755)
    work = tmp_path / "work"
    with Bed(workdir=work, qemu=str(qemu)) as bed:
        bed.start("true")
        with pytest.raises(BedError, match="QEMU killed by signal 6"):
            bed.wait_for_file("devices-ready", timeout=30)
    assert (work / "fake-launches").read_text() == "1"


def test_a_guest_that_ends_without_a_panic_is_not_booted_again(tmp_path: Path):
    """A guest that stops before its command for another reason (a bad module list, say) is
    the test's to report, once: only a panic or a hang is the emulator's."""
    qemu = tmp_path / "fake-qemu"
    qemu.write_text(f"#!{sys.executable}\nimport pathlib\n"
                    "n = pathlib.Path('fake-launches')\n"
                    "n.write_text(str(int(n.read_text()) + 1 if n.exists() else 1))\n"
                    f"pathlib.Path('console.log').write_text({NORMAL_CONSOLE!r})\n")
    qemu.chmod(0o755)
    work = tmp_path / "work"
    with Bed(workdir=work, qemu=str(qemu)) as bed:
        bed.start("true")
        assert not bed.running
    assert (work / "fake-launches").read_text() == "1"
