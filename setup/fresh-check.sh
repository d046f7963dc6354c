#!/bin/sh
# A new user's first day, replayed: a clean minimal Debian bookworm
# (debootstrap --variant=minbase plus git, make and sudo) in a chroot under
# $FRESH_CHECK_DIR (default /var/tmp/alphaprof-fresh-check: outside the
# repository, so nothing that walks or cleans the tree meets the chroot's
# /proc, /sys and /dev mounts), a clone of this repository's HEAD in it, and the
# README's two commands run there by an ordinary user with sudo, as a new
# user would run them.  Exits non-zero if either fails.
#
# Needs root (or sudo) on the host: debootstrap and chroot are root's tools.
# The package mirror and apt's settings are read from this machine's
# /etc/apt at run time, so the chroot reaches the archive the host reaches;
# nothing about the mirror is written into the repository.
#
# Usage: setup/fresh-check.sh [GOALS...]   (default: test run)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
goals=${*:-test run}
base=${FRESH_CHECK_DIR:-/var/tmp/alphaprof-fresh-check}
root="$base/root"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# The mirror: the first archive this machine lists for bookworm.
mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
             /etc/apt/sources.list.d/*.list 2>/dev/null |
         awk '/^URIs:/ { uri = $2 } /^Suites:.*bookworm( |$)/ && uri { print uri; exit }
              /^deb .* bookworm( |$)/ { print $2; exit }')
if [ -z "$mirror" ]; then
    echo "fresh-check: no bookworm archive in /etc/apt/sources.list*; add one and retry" >&2
    exit 1
fi

command -v debootstrap >/dev/null 2>&1 || {
    echo "fresh-check: installing debootstrap"
    $sudo apt-get install -y -qq --no-install-recommends debootstrap
}

cleanup() {
    for m in dev/shm dev/pts dev sys proc; do
        mountpoint -q "$root/$m" 2>/dev/null && $sudo umount -l "$root/$m" || true
    done
}
trap cleanup EXIT INT TERM
cleanup
$sudo rm -rf "$root"
$sudo mkdir -p "$base/debs" && $sudo chown "$(id -u)" "$base"

echo "fresh-check: debootstrap minbase bookworm into $root"
$sudo debootstrap --variant=minbase --include=git,make,sudo \
    --cache-dir="$base/debs" bookworm "$root" "$mirror" >"$base/debootstrap.log" 2>&1 || {
    echo "fresh-check: debootstrap failed; see $base/debootstrap.log" >&2
    exit 1
}

# Same archive access as this machine: its apt sources and settings.
$sudo cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/" 2>/dev/null &&
    $sudo rm -f "$root/etc/apt/sources.list" || true
for f in /etc/apt/apt.conf.d/*; do
    case "$f" in *disabled*) ;; *) $sudo cp "$f" "$root/etc/apt/apt.conf.d/" ;; esac
done
$sudo cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# Same trust as this machine: its local CA certificates (those of a proxy
# between it and the registries), which ca-certificates' install in the
# chroot adds to the bundle, and npm told to use that bundle where this
# machine's npm is (npm otherwise trusts only its own built-in list).
if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
    $sudo mkdir -p "$root/usr/local/share/ca-certificates"
    $sudo cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
    if command -v npm >/dev/null 2>&1 && [ "$(npm config get cafile 2>/dev/null)" != "null" ]; then
        echo "cafile=/etc/ssl/certs/ca-certificates.crt" | $sudo tee "$root/etc/npmrc" >/dev/null
    fi
fi

$sudo mount -t proc proc "$root/proc"
$sudo mount -t sysfs sysfs "$root/sys"
$sudo mount --bind /dev "$root/dev"
$sudo mount --bind /dev/pts "$root/dev/pts"
$sudo mount -t tmpfs -o mode=1777 shm "$root/dev/shm"

# An ordinary user with sudo, as on a developer's machine.
$sudo chroot "$root" sh -c 'id user >/dev/null 2>&1 || useradd -m -s /bin/bash user;
    echo "user ALL=(ALL) NOPASSWD: ALL" > /etc/sudoers.d/user; chmod 440 /etc/sudoers.d/user'
$sudo git clone -q "$repo" "$root/home/user/alphaprof"
$sudo chroot "$root" chown -R user:user /home/user/alphaprof

status=0
for goal in $goals; do
    echo "fresh-check: make $goal (log: $base/make-$goal.log)"
    if $sudo chroot "$root" su - user -c "cd alphaprof && make $goal" >"$base/make-$goal.log" 2>&1; then
        echo "fresh-check: make $goal: ok ($(tail -n 1 "$base/make-$goal.log"))"
    else
        echo "fresh-check: make $goal FAILED; last lines:" >&2
        tail -n 15 "$base/make-$goal.log" >&2
        status=1
    fi
done
exit $status
