#!/bin/sh
# Installs the Debian packages listed in setup/packages.txt that are missing.
# Idempotent: does nothing (and needs no network) when all are present.
set -eu
here=$(dirname "$0")
missing=""
for pkg in $(sed -e 's/#.*//' "$here/packages.txt"); do
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
