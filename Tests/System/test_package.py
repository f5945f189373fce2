"""deploy/package's .deb, host-only (no VM).

Fast part, from the .deb files themselves: control fields (Depends computed by dpkg-shlibdeps),
contents and modes, kiosk.conf as the one conffile, maintainer scripts through shellcheck, and
`systemd-analyze verify` of the unit in the unpacked package.

Chroot part: a clean Debian root of this machine's release (mmdebstrap, cached under
/var/cache/kiosk-roots with kiosk's dependencies already in it, so apt downloads nothing), and a
throwaway overlay over it per test: `apt install ./kiosk_*.deb`, the user and the config's
owner, `systemd-analyze verify` of the installed unit, the installed kiosk playing a clip as
the kiosk user, purge leaving the root as it was, and an edited kiosk.conf surviving an upgrade.
A warm run takes about a minute; a cold one first makes the root (see README: "Running as a service").

Needs root, the release kiosk at .build/release/kiosk (`swift build -c release --product kiosk
--static-swift-stdlib`, or deploy/test's link of it), dpkg-dev, shellcheck, mmdebstrap and ffmpeg (deploy/packages.txt).

A .deb built elsewhere (another release, another architecture) is tested the same way with
`deploy/test-deb [--release SUITE] DEB`, which sets:
  KIOSK_TEST_DEB      that .deb instead of one made here from the host's release kiosk; the two
                      versions are it with its Version field changed (V2 also with a changed
                      example config), so the files tested are the ones that were built;
  KIOSK_TEST_RELEASE  the clean root's Debian release (default: this machine's), made for the
                      .deb's architecture (an arm64 root runs through qemu-user's binfmt).
"""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RELEASE_KIOSK = REPO / ".build" / "release" / "kiosk"
PACKAGE = REPO / "deploy" / "package"
ROOTS = REPO / "deploy" / "debian-root.sh"
V1, V2 = "0.1.0~test1", "0.1.0~test2"
# The dpkg/apt state and caches, logs, and shadow-utils' own backups change with any install:
# everything else in the root must be as it was after a purge.
VOLATILE = ("var/cache/", "var/lib/apt/", "var/lib/dpkg/", "var/log/", "tmp/", "proc/", "sys/", "dev/", "run/",
            "debs/", "etc/ld.so.cache")
SHADOW_BACKUPS = {"etc/passwd-", "etc/group-", "etc/shadow-", "etc/gshadow-", "etc/.pwd.lock", "etc/subuid-",
                  "etc/subgid-"}


def run(command, timeout=300, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, **kwargs)
    assert result.returncode == 0, f"{command}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


GIVEN_DEB = os.environ.get("KIOSK_TEST_DEB")


def repack(deb, version, out, conf=None):
    """`deb` as version `version` (and with `conf` as its example config), in `out`."""
    tree = out / f"tree-{version}"
    run(["dpkg-deb", "-R", str(deb), str(tree)])
    control = tree / "DEBIAN" / "control"
    control.write_text("".join(f"Version: {version}\n" if line.startswith("Version:") else line
                               for line in control.read_text().splitlines(keepends=True)))
    if conf:
        shutil.copyfile(conf, tree / "etc/kiosk/kiosk.conf")
    arch = field(deb, "Architecture")
    target = out / f"kiosk_{version}_{arch}.deb"
    run(["dpkg-deb", "--root-owner-group", "-Zxz", "-z1", "--build", str(tree), str(target)])
    shutil.rmtree(tree)
    return target


@pytest.fixture(scope="module")
def debs(tmp_path_factory):
    if os.geteuid() != 0:
        pytest.skip("dpkg-statoverride checks and the chroot need root (as deploy/setup does)")
    if GIVEN_DEB:
        for tool in ("dpkg-deb", "shellcheck"):
            if not shutil.which(tool):
                pytest.skip(f"{tool} is missing (deploy/setup installs it)")
        out = tmp_path_factory.mktemp("debs")
        out.chmod(0o755)
        changed = out / "kiosk.conf"
        changed.write_text((REPO / "kiosk.conf").read_text() + "# a line only version 2's example has\n")
        given = Path(GIVEN_DEB).resolve()
        return repack(given, V1, out), repack(given, V2, out, conf=changed)
    if not RELEASE_KIOSK.exists():
        pytest.skip(f"{RELEASE_KIOSK} is missing: swift build -c release --product kiosk --static-swift-stdlib "
                    "(deploy/test builds it)")
    for tool in ("dpkg-shlibdeps", "shellcheck"):
        if not shutil.which(tool):
            pytest.skip(f"{tool} is missing (deploy/setup installs it)")
    out = tmp_path_factory.mktemp("debs")
    out.chmod(0o755)  # bound at /debs in the root, where the kiosk user reads the clip
    first = Path(run([str(PACKAGE), "--binary", str(RELEASE_KIOSK), "--version", V1, "--out", str(out)]).strip())
    # The second version ships a changed example, so dpkg's conffile logic really decides.
    changed = out / "kiosk.conf"
    changed.write_text((REPO / "kiosk.conf").read_text() + "# a line only version 2's example has\n")
    second = Path(run([str(PACKAGE), "--binary", str(RELEASE_KIOSK), "--version", V2, "--conf", str(changed),
                       "--out", str(out)]).strip())
    return first, second


def field(deb, name):
    return run(["dpkg-deb", "-f", str(deb), name]).strip()


def test_control_fields(debs):
    first, second = debs
    arch = deb_arch(first) if GIVEN_DEB else run(["dpkg", "--print-architecture"]).strip()
    assert first.name == f"kiosk_{V1}_{arch}.deb" and second.name == f"kiosk_{V2}_{arch}.deb"
    assert field(first, "Package") == "kiosk" and field(first, "Version") == V1
    assert field(first, "Architecture") == arch
    depends = [d.strip().split(" ")[0] for d in field(first, "Depends").split(",")]
    # What the binary links, with the sonames of this release (libavcodec59 on bookworm, 61 on trixie).
    for prefix in ("libavcodec", "libavformat", "libswscale", "libswresample", "libasound2", "libdrm2",
                   "libevdev2", "libfreetype", "libharfbuzz0b", "libfribidi0", "libsystemd0", "libc6",
                   "libsodium23"):
        assert any(d.startswith(prefix) for d in depends), (prefix, depends)
    # libmosquitto is opened on first use (a kiosk.conf with `mqtt:`): recommended, not required.
    recommends = [d.strip().split(" ")[0] for d in field(first, "Recommends").split(",")]
    assert "libmosquitto1" in recommends and not any(d.startswith("libmosquitto") for d in depends), (depends, recommends)
    # So is libheif (HEIC/HEIF and AVIF stills), and libcurl (content sync, feeds, CAP alerts:
    # libcurl4 on bookworm, or trixie's libcurl4t64).
    assert "libheif1" in recommends and not any(d.startswith("libheif") for d in depends), (depends, recommends)
    assert "libcurl4" in recommends and not any(d.startswith("libcurl") for d in depends), (depends, recommends)
    # postinst's useradd, the unit's ExecReload=/usr/bin/kill.
    assert "passwd" in depends and "procps" in depends
    # The runtime of Swift is linked in: no Swift library to depend on.
    assert not any("swift" in d for d in depends), depends


def test_contents_modes_and_conffile(debs, tmp_path):
    first, _ = debs
    listing = {}
    for line in run(["dpkg-deb", "-c", str(first)]).splitlines():
        perms, owner, _size, _date, _time, path = line.split(None, 5)
        listing[path.removeprefix(".")] = (perms, owner)
    assert listing["/usr/bin/kiosk"] == ("-rwxr-xr-x", "root/root")
    assert listing["/usr/lib/systemd/system/kiosk.service"] == ("-rw-r--r--", "root/root")
    assert listing["/etc/kiosk/kiosk.conf"] == ("-rw-r--r--", "root/root")
    assert "/usr/share/doc/kiosk/README.md" in listing
    control = tmp_path / "control"
    run(["dpkg-deb", "-e", str(first), str(control)])
    assert (control / "conffiles").read_text().split() == ["/etc/kiosk/kiosk.conf"]
    unpacked = tmp_path / "unpacked"
    run(["dpkg-deb", "-x", str(first), str(unpacked)])
    assert (unpacked / "etc/kiosk/kiosk.conf").read_bytes() == (REPO / "kiosk.conf").read_bytes()
    unit = (unpacked / "usr/lib/systemd/system/kiosk.service").read_text()
    assert "ExecStart=/usr/bin/kiosk run --config /etc/kiosk/kiosk.conf" in unit
    assert "/usr/local" not in unit


def test_maintainer_scripts_pass_shellcheck(debs, tmp_path):
    control = tmp_path / "control"
    run(["dpkg-deb", "-e", str(debs[0]), str(control)])
    scripts = [control / name for name in ("postinst", "prerm", "postrm")]
    for script in scripts:
        assert script.read_text().startswith("#!/bin/sh\n") and os.access(script, os.X_OK), script
    run(["shellcheck", "--shell=sh", *map(str, scripts)])


def test_unpacked_unit_verifies(debs, tmp_path):
    unpacked = tmp_path / "unpacked"
    run(["dpkg-deb", "-x", str(debs[0]), str(unpacked)])
    # The package's unit, checked by this machine's systemd with ExecStart at the unpacked binary
    # (--root would want a whole system in the folder; the chroot test verifies it installed).
    unit = tmp_path / "kiosk.service"
    text = (unpacked / "usr/lib/systemd/system/kiosk.service").read_text()
    unit.write_text(text.replace("ExecStart=/usr/bin/kiosk", f"ExecStart={unpacked}/usr/bin/kiosk"))
    result = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "kiosk.service" not in result.stderr, result.stderr


# ---- the chroot part ----

def host_release():
    fields = dict(line.split("=", 1) for line in Path("/etc/os-release").read_text().splitlines() if "=" in line)
    return fields.get("VERSION_CODENAME", "").strip('"')


def deb_arch(deb):
    return run(["dpkg-deb", "-f", str(deb), "Architecture"]).strip()


def bash(script, *args, timeout=600):
    return run(["bash", "-c", f'set -euo pipefail; . "{ROOTS}"; {script}', "bash", *map(str, args)], timeout=timeout)


@pytest.fixture(scope="module")
def clean_root(debs):
    if not shutil.which("mmdebstrap"):
        pytest.skip("mmdebstrap is missing (deploy/setup installs it)")
    release = os.environ.get("KIOSK_TEST_RELEASE") or host_release()
    if not release:
        pytest.skip("no VERSION_CODENAME in /etc/os-release: not a Debian release mmdebstrap can make")
    if "overlay" not in Path("/proc/filesystems").read_text():
        pytest.skip("no overlayfs in this kernel (the per-test layers over the cached root need it)")
    # kiosk's dependencies (and its Recommends) go into the cached root, so that installing the
    # .deb is apt resolving from what is there, not a download each run.
    wanted = {d.strip().split(" ")[0] for d in field(debs[0], "Depends").split(",")}
    wanted |= {d.strip().split(" ")[0] for d in field(debs[0], "Recommends").split(",")}
    arch = deb_arch(debs[0])
    if arch != run(["dpkg", "--print-architecture"]).strip():
        binfmt = {"arm64": "qemu-aarch64", "armhf": "qemu-arm", "amd64": "qemu-x86_64"}.get(arch, arch)
        if not Path(f"/proc/sys/fs/binfmt_misc/{binfmt}").exists():
            pytest.skip(f"{arch} programs cannot run here: no {binfmt} binfmt entry (deploy/test-deb registers it)")
    # A root per release and architecture; this machine's own keeps its old name.
    name = f"package-test-{release}" + ("" if arch == run(["dpkg", "--print-architecture"]).strip() else f"-{arch}")
    root = bash('make_root "$1" "$2" "$3" "${@:4}"', name, arch, release, *sorted(wanted), timeout=2400)
    return Path(root.strip().splitlines()[-1])


@pytest.fixture
def box(clean_root, debs, tmp_path):
    """A shell in a throwaway layer over the clean root, with the .debs and a clip in /debs."""
    clip = debs[0].parent / "clip.mp4"
    if not clip.exists():
        run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1",
             "-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:v", "libx264", "-pix_fmt", "yuv420p",
             "-c:a", "aac", "-shortest", str(clip)])
    state = tmp_path / "layer"
    slow = emulated(debs)

    def shell(command, check=True):
        full = ["bash", "-c", f'. "{ROOTS}"; in_root "$1" --overlay "$2" --bind "$3:/debs" -- sh -ec "$4"', "bash",
                str(clean_root), str(state), str(debs[0].parent), command]
        # Emulated (another architecture's root through qemu-user) apt and kiosk run many times slower.
        result = subprocess.run(full, capture_output=True, text=True, timeout=1500 if slow else 300,
                                env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
        if check:
            assert result.returncode == 0, f"{command}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        return result.stdout

    shell.debs = {V1: f"/debs/{debs[0].name}", V2: f"/debs/{debs[1].name}"}
    shell.emulated = slow
    return shell


def emulated(debs):
    return deb_arch(debs[0]) != run(["dpkg", "--print-architecture"]).strip()


def snapshot(shell):
    """Every path in the root but the volatile ones, and the user databases' contents."""
    paths = shell("cd / && find . -xdev -mindepth 1 | sed 's|^\\./||' | sort")
    kept = {p for p in paths.splitlines() if not p.startswith(VOLATILE) and p not in SHADOW_BACKUPS}
    users = shell("cat /etc/passwd /etc/group /etc/shadow /etc/gshadow; dpkg-statoverride --list || true")
    return kept, users


APT_INSTALL = "apt-get install -y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold"


def test_installs_plays_verifies_and_purges_clean(box):
    before_paths, before_users = snapshot(box)
    box(f"{APT_INSTALL} {box.debs[V1]}")
    owner = box("stat -c '%U:%G %a' /etc/kiosk/kiosk.conf").strip()
    assert owner == "root:kiosk 640"
    # The device groups the root has (a root without udev has no `input`, a box has all three).
    present = set(box("cut -d: -f1 /etc/group").split()) & {"video", "audio", "input", "render"}
    assert {"video", "audio"} <= present
    assert set(box("id -nG kiosk").split()) == {"kiosk"} | present
    assert box("getent passwd kiosk").strip().endswith(":/nonexistent:/usr/sbin/nologin")
    enabled = box("readlink /etc/systemd/system/multi-user.target.wants/kiosk.service").strip()
    assert enabled.endswith("/lib/systemd/system/kiosk.service"), enabled
    verify = box("systemd-analyze verify /usr/lib/systemd/system/kiosk.service 2>&1")
    assert "kiosk.service" not in verify, verify
    # The installed binary with only its Depends: a 1 s clip at 25 fps played to its end as the
    # service's user, every frame presented (one stats line each).
    presented = box("setpriv --reuid=kiosk --regid=kiosk --init-groups /usr/bin/kiosk play --display headless:320x240 "
                    "--audio none --stats-file /tmp/stats.jsonl /debs/clip.mp4 >/dev/null && wc -l < /tmp/stats.jsonl")
    # Under qemu-user a frame may come late and be dropped, as on a box too slow for the clip:
    # what is checked there is that the installed binary runs with its Depends and plays to the end.
    assert int(presented) >= (1 if box.emulated else 24), presented

    box("apt-get purge -y -q kiosk")
    after_paths, after_users = snapshot(box)
    assert after_paths ^ before_paths == set()
    assert after_users == before_users


def test_edited_config_survives_an_upgrade(box):
    box(f"{APT_INSTALL} {box.debs[V1]}")
    box("echo '# edited on the box' >> /etc/kiosk/kiosk.conf")
    box(f"{APT_INSTALL} {box.debs[V2]}")
    assert box("dpkg-query -W -f='${Version}' kiosk") == V2
    config = box("cat /etc/kiosk/kiosk.conf")
    assert config.endswith("# edited on the box\n") and "only version 2's example" not in config
    # dpkg put the new example beside it; the owner and mode held through the upgrade.
    assert "only version 2's example" in box("cat /etc/kiosk/kiosk.conf.dpkg-dist")
    assert box("stat -c '%U:%G %a' /etc/kiosk/kiosk.conf").strip() == "root:kiosk 640"
    box("apt-get purge -y -q kiosk")
    assert box("ls -A /etc/kiosk 2>/dev/null || true").strip() == ""
