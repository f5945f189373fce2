# shellcheck shell=bash
# Sourced by deploy/trixie, deploy/arm64 and Tests/System/test_package.py: make a cached Debian root with
# mmdebstrap and run commands inside it. Roots live outside the repo (default
# /var/cache/kiosk-roots) because they are hundreds of MiB and reused between runs.
# Needs root (chroot, mounts) and mmdebstrap; arm64 roots also need qemu-user-static with binfmt.

KIOSK_ROOTS=${KIOSK_ROOTS:-/var/cache/kiosk-roots}

# The Debian mirror this machine's apt already uses (no host name is written into the repo):
# the first http(s) URI of a deb822 .sources file or a one-line sources.list entry that is not
# the security archive.
debian_mirror() {
    local uri
    uri=$(grep -hE '^\s*URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' |
          grep -v security | grep -E '^https?://' | grep '/debian/\?$' | head -n1 || true)
    if [ -z "$uri" ]; then
        uri=$(grep -hE '^\s*deb\s' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
              awk '{for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) {print $i; break}}' |
              grep -v security | grep '/debian/\?$' | head -n1 || true)
    fi
    [ -n "$uri" ] || { echo "debian-root: no Debian mirror found in /etc/apt/sources.list*" >&2; return 1; }
    echo "${uri%/}"
}

# make_root NAME ARCH SUITE PACKAGE... -> prints the root's path.
# A stamp file holds the list the root was made with. A list that only gained packages (a new C
# library in kiosk) installs those into the cached root with apt (seconds, not a new root of
# hundreds of MiB); any other change (arch, suite, a package dropped) rebuilds it, so a root
# never holds a package its list no longer names (the package test's clean roots rely on that).
make_root() {
    local name=$1 arch=$2 suite=$3; shift 3
    local dir=$KIOSK_ROOTS/$name stamp want mirror
    stamp=$dir/.kiosk-root
    want="$arch $suite $*"
    # One maker per root: a second run (deploy/test-deb beside deploy/arm64) waits, then finds it made.
    mkdir -p "$KIOSK_ROOTS"
    local lock
    exec {lock}>"$KIOSK_ROOTS/.$name.lock"
    flock -n "$lock" || { echo "debian-root: waiting for another run making $dir" >&2; flock "$lock"; }
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then echo "$dir"; return; fi
    if [ -f "$stamp" ] && add_to_root "$dir" "$stamp" "$arch" "$suite" "$@"; then echo "$dir"; return; fi
    mirror=$(debian_mirror)
    echo "debian-root: making $dir ($suite/$arch from $mirror); a first run downloads a few hundred MiB" >&2
    rm -rf "$dir" "$dir.new"
    mkdir -p "$KIOSK_ROOTS"
    local include
    include=$(IFS=,; echo "$*")
    # --variant=apt: essential packages plus apt, so the root can install more later (the
    # package test installs the .deb with apt in it).
    # Lists are kept (--skip=cleanup/apt/lists) so apt-cache and apt install work without an update.
    mmdebstrap --variant=apt --arch="$arch" --include="$include" --skip=cleanup/apt/lists \
        --aptopt='Acquire::Retries "3"' \
        "$suite" "$dir.new" "deb $mirror $suite main" >&2
    echo "$want" >"$dir.new/.kiosk-root"
    mv "$dir.new" "$dir"
    echo "$dir"
}

# add_to_root DIR STAMP ARCH SUITE PACKAGE...: installs into the root the packages its stamp
# lacks and records the new list; fails (the caller rebuilds) when arch or suite differ or the
# stamp names a package the list does not. The saved apt lists may be older than the mirror
# (a point release removes the versions they name), so they are updated first.
add_to_root() {
    local dir=$1 stamp=$2 arch=$3 suite=$4; shift 4
    local old=() added=() p
    read -r -a old <"$stamp"
    [ "${old[0]:-}" = "$arch" ] && [ "${old[1]:-}" = "$suite" ] || return 1
    for p in "${old[@]:2}"; do
        [[ " $* " == *" $p "* ]] || return 1
    done
    for p in "$@"; do
        [[ " ${old[*]:2} " == *" $p "* ]] || added+=("$p")
    done
    echo "debian-root: adding ${added[*]} to $dir" >&2
    in_root "$dir" -- env DEBIAN_FRONTEND=noninteractive sh -c \
        'apt-get update -q && apt-get install -y -q --no-install-recommends "$@"' add_to_root "${added[@]}" >&2 ||
        return 1
    echo "$arch $suite $*" >"$stamp"
}

# in_root DIR [--overlay STATE] [--bind HOSTPATH[:INSIDE]]... -- COMMAND...
# Runs COMMAND in DIR with /proc, /sys, /dev and the bind mounts, inside a private mount
# namespace so that nothing stays mounted when it ends (even when it is killed).
# --overlay STATE leaves DIR as it is: the command sees DIR with an overlayfs whose changes go to
# the folder STATE, kept there for the next in_root with the same STATE (the package test
# installs and purges in a throwaway layer over a cached clean root).
in_root() {
    local dir=$1; shift
    local binds=() state=
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        case "$1" in
            --bind) binds+=("$2"); shift 2 ;;
            --overlay) state=$2; shift 2 ;;
            *) echo "in_root: bad argument $1" >&2; return 2 ;;
        esac
    done
    shift
    [ -z "$state" ] || mkdir -p "$state/upper" "$state/work" "$state/merged"
    local script='set -e; d=$1; shift; state=$1; shift; n=$1; shift
if [ -n "$state" ]; then
    mount -t overlay overlay -o "lowerdir=$d,upperdir=$state/upper,workdir=$state/work" "$state/merged"
    d=$state/merged
fi
mount -t proc proc "$d/proc"; mount --rbind /sys "$d/sys"; mount --rbind /dev "$d/dev"
mount -t tmpfs tmpfs "$d/tmp"
i=0; while [ $i -lt "$n" ]; do spec=$1; shift; i=$((i + 1))
    src=${spec%%:*}; dst=${spec#*:}; [ "$dst" = "$spec" ] && dst=$src
    mkdir -p "$d$dst"; mount --bind "$src" "$d$dst"; done
cp /etc/resolv.conf "$d/etc/resolv.conf" 2>/dev/null || true
exec chroot "$d" "$@"'
    unshare --mount --propagation private --fork -- bash -c "$script" in_root "$dir" "$state" "${#binds[@]}" "${binds[@]}" "$@"
}

# ensure_binfmt ARCH: programs of Debian architecture ARCH run here (natively, or through
# qemu-user-static's binfmt entry, registered if it is not yet). The entry needs the F flag
# (the interpreter is opened at registration), or programs inside a chroot cannot use it.
ensure_binfmt() {
    local arch=$1 entry
    [ "$arch" = "$(dpkg --print-architecture)" ] && return 0
    case "$arch" in
        arm64) entry=qemu-aarch64 ;;
        amd64) entry=qemu-x86_64 ;;
        armhf) entry=qemu-arm ;;
        *) echo "debian-root: no qemu binfmt name known for $arch" >&2; return 1 ;;
    esac
    if [ ! -e "/proc/sys/fs/binfmt_misc/$entry" ]; then
        [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
        update-binfmts --enable "$entry"
    fi
    grep -q 'flags:.*F' "/proc/sys/fs/binfmt_misc/$entry" ||
        { echo "debian-root: $entry's binfmt entry lacks the F flag: chroots cannot use it" >&2; return 1; }
}
