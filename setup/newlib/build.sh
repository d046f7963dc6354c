#!/bin/sh
# Builds newlib for bare-metal Alpha from Debian's newlib-source with
# alpha-bare-metal.patch, installing into $1 (default build/newlib).
# Rebuilds only when the patch or this script changes (stamp file).
# The build directory's path is mapped out of the objects (DWARF, __FILE__)
# so images linked with them do not depend on where the tree is cloned.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
prefix=$(mkdir -p "${1:-build/newlib}" && cd "${1:-build/newlib}" && pwd)
stamp="$prefix/.built"
want=$(cat "$here/alpha-bare-metal.patch" "$here/build.sh" | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    exit 0
fi
tarball=$(ls /usr/src/newlib/newlib-*.tar.* 2>/dev/null | head -n 1)
if [ -z "$tarball" ]; then
    echo "setup: newlib source not found in /usr/src/newlib; install the Debian package newlib-source" >&2
    exit 1
fi
work="$prefix/src"
rm -rf "$work" && mkdir -p "$work"
echo "setup: building newlib from $tarball (about a minute, done once)"
tar -C "$work" -xf "$tarball"
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -n 1)
patch -d "$src" -p1 -s < "$here/alpha-bare-metal.patch"

cross=alpha-linux-gnu
gccinc=$($cross-gcc -print-file-name=include)
mkdir -p "$work/obj"
cd "$work/obj"
"$src/configure" --target=alpha-unknown-elf --prefix="$prefix" \
    CC_FOR_TARGET="$cross-gcc -nostdinc -idirafter $gccinc" \
    AR_FOR_TARGET=$cross-ar AS_FOR_TARGET=$cross-as LD_FOR_TARGET=$cross-ld \
    NM_FOR_TARGET=$cross-nm RANLIB_FOR_TARGET=$cross-ranlib \
    OBJDUMP_FOR_TARGET=$cross-objdump READELF_FOR_TARGET=$cross-readelf \
    STRIP_FOR_TARGET=$cross-strip \
    CFLAGS_FOR_TARGET="-O2 -g -mcpu=ev67 -mlong-double-64 -ffunction-sections -fdata-sections -fno-pic -fno-stack-protector -fno-asynchronous-unwind-tables -fno-unwind-tables -ffile-prefix-map=$work=newlib" \
    --disable-newlib-supplied-syscalls --enable-newlib-nano-malloc \
    --enable-newlib-reent-small --disable-newlib-fvwrite-in-streamio \
    --disable-newlib-fseek-optimization --disable-newlib-wide-orient \
    --disable-newlib-unbuf-stream-opt --enable-newlib-global-atexit \
    --enable-newlib-io-long-long --enable-newlib-io-c99-formats \
    --disable-newlib-multithread --enable-lite-exit --disable-multilib \
    --disable-nls > "$prefix/configure.log" 2>&1 \
    || { echo "setup: newlib configure failed, see $prefix/configure.log" >&2; exit 1; }
jobs=$(nproc 2>/dev/null || echo 2)
{ make -j"$jobs" all-target-newlib && make install-target-newlib; } > "$prefix/build.log" 2>&1 \
    || { echo "setup: newlib build failed, see $prefix/build.log" >&2; exit 1; }
cd "$prefix" && rm -rf "$work"
echo "$want" > "$stamp"
echo "setup: newlib installed in $prefix"
