#!/bin/sh
# Installs the Debian packages listed in setup/packages.txt that are missing.
# Idempotent: does nothing (and needs no network) when all are present.
# An entry PKG@COMMAND is wanted only for its command: it is skipped when
# COMMAND is already on the PATH from elsewhere (npm inside a nodejs that
# is not Debian's, which Debian's npm package would conflict with).
set -eu
here=$(dirname "$0")
missing=""
for entry in $(sed -e 's/#.*//' "$here/packages.txt"); do
    pkg=${entry%@*}
    if [ "$pkg" != "$entry" ] && command -v "${entry#*@}" >/dev/null 2>&1; then
        continue
    fi
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
        || missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0
echo "setup: installing Debian packages:$missing"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends $missing
