"""deploy/install into a --root temp folder (no change to this machine): files in place with
their modes, the unit pointing at the installed binary and enabled, the kiosk user with the
device groups, an existing kiosk.conf kept (the example beside it), and --uninstall taking
away exactly what install added.

Needs a kiosk build (`swift build`; built_kiosk.py): it is installed with --binary.
"""
import os
import stat
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
INSTALL = REPO / "deploy" / "install"
# Left by useradd/userdel themselves (backups and their lock), not by the install.
SHADOW_UTILS_LEFTOVERS = {"etc/passwd-", "etc/group-", "etc/shadow-", "etc/gshadow-", "etc/.pwd.lock"}


def make_root(directory: Path, groups=("video", "audio", "input", "render")):
    etc = directory / "etc"
    etc.mkdir(parents=True)
    (etc / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (etc / "shadow").write_text("root:*::0:99999:7:::\n")
    (etc / "group").write_text("root:x:0:\n" + "".join(f"{g}:x:{40 + i}:\n" for i, g in enumerate(groups)))
    (etc / "gshadow").write_text("root:*::\n" + "".join(f"{g}:*::\n" for g in groups))
    return directory


def tree(directory: Path):
    return {str(p.relative_to(directory)) for p in directory.rglob("*")} - SHADOW_UTILS_LEFTOVERS


def install(root: Path, *extra):
    result = subprocess.run([str(INSTALL), "--root", str(root), *extra], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def mode(path: Path):
    return stat.S_IMODE(path.stat().st_mode)


def line_of(path: Path, name: str):
    return next((line for line in path.read_text().splitlines() if line.startswith(name + ":")), None)


@pytest.fixture
def root(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("useradd --root and chown need root (as deploy/setup does)")
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    return make_root(tmp_path / "root")


def test_install_puts_everything_in_place(root):
    install(root, "--binary", str(KIOSK))
    binary = root / "usr/local/bin/kiosk"
    assert mode(binary) == 0o755 and binary.read_bytes() == KIOSK.read_bytes()
    unit = root / "etc/systemd/system/kiosk.service"
    assert mode(unit) == 0o644
    assert "ExecStart=/usr/local/bin/kiosk run --config /etc/kiosk/kiosk.conf" in unit.read_text()
    wants = root / "etc/systemd/system/multi-user.target.wants/kiosk.service"
    assert wants.is_symlink() and os.readlink(wants) == "/etc/systemd/system/kiosk.service"
    conf = root / "etc/kiosk/kiosk.conf"
    assert conf.read_text() == (REPO / "kiosk.conf").read_text()
    user = line_of(root / "etc/passwd", "kiosk")
    assert user and user.endswith(":/nonexistent:/usr/sbin/nologin")
    kiosk_gid = int(line_of(root / "etc/group", "kiosk").split(":")[2])
    # Root writes the configuration; the kiosk group reads it; nobody else does.
    assert mode(conf) == 0o640 and conf.stat().st_uid == 0 and conf.stat().st_gid == kiosk_gid
    for group in ("video", "audio", "input", "render"):
        assert line_of(root / "etc/group", group).split(":")[3] == "kiosk", group
    assert (root / "usr/local/share/doc/kiosk/README.md").exists()


def test_prefix_moves_the_binary_and_the_unit_follows(root):
    install(root, "--binary", str(KIOSK), "--prefix", "/opt/kiosk")
    assert (root / "opt/kiosk/bin/kiosk").exists()
    assert not (root / "usr/local/bin/kiosk").exists()
    assert "ExecStart=/opt/kiosk/bin/kiosk run" in (root / "etc/systemd/system/kiosk.service").read_text()


def test_an_existing_config_is_never_overwritten(root):
    conf = root / "etc/kiosk/kiosk.conf"
    conf.parent.mkdir(parents=True)
    conf.write_text("items:\n  - /srv/kiosk/mine.mp4\n")
    output = install(root, "--binary", str(KIOSK))
    assert conf.read_text() == "items:\n  - /srv/kiosk/mine.mp4\n"
    assert (root / "etc/kiosk/kiosk.conf.example").read_text() == (REPO / "kiosk.conf").read_text()
    assert "kept your /etc/kiosk/kiosk.conf" in output and "kiosk.conf.example" in output
    # Uninstalling keeps the user's file, even with --purge (install did not write it).
    install(root, "--uninstall", "--purge")
    assert conf.read_text() == "items:\n  - /srv/kiosk/mine.mp4\n"
    assert not (root / "etc/kiosk/kiosk.conf.example").exists()


def test_uninstall_removes_what_install_added(root):
    before = tree(root)
    passwd, group = (root / "etc/passwd").read_text(), (root / "etc/group").read_text()
    install(root, "--binary", str(KIOSK))
    # The installed config edited by its owner: kept by --uninstall, removed by --purge.
    conf = root / "etc/kiosk/kiosk.conf"
    conf.write_text(conf.read_text() + "# edited on the box\n")
    install(root, "--binary", str(KIOSK))   # a second install (an upgrade) changes nothing of that
    assert conf.read_text().endswith("# edited on the box\n")
    output = install(root, "--uninstall")
    assert "kept /etc/kiosk/kiosk.conf" in output
    assert tree(root) == before | {"etc/kiosk", "etc/kiosk/kiosk.conf"}
    assert (root / "etc/passwd").read_text() == passwd and (root / "etc/group").read_text() == group
    # After an uninstall the kept file is the user's own: a new install leaves it alone. With it
    # gone, install and uninstall --purge leave the root as it was.
    conf.unlink()
    conf.parent.rmdir()
    install(root, "--binary", str(KIOSK))
    install(root, "--uninstall", "--purge")
    assert tree(root) == before


def test_user_gets_only_the_groups_the_system_has(root, tmp_path):
    root = make_root(tmp_path / "other-root", groups=("video", "audio", "input"))
    output = install(root, "--binary", str(KIOSK), "--no-enable")
    assert "groups: video,audio,input)" in output
    assert not (root / "etc/systemd/system/multi-user.target.wants").exists()


def test_bad_options_say_what_is_wrong(tmp_path):
    result = subprocess.run([str(INSTALL), "--root", str(tmp_path / "missing")], capture_output=True, text=True)
    assert result.returncode == 2 and "is not a folder" in result.stderr
    result = subprocess.run([str(INSTALL), "--frobnicate"], capture_output=True, text=True)
    assert result.returncode == 2 and "unknown option '--frobnicate'" in result.stderr
    result = subprocess.run([str(INSTALL), "--root", str(tmp_path), "--uninstall"], capture_output=True, text=True)
    assert result.returncode == 1 and "nothing to uninstall" in result.stderr
