#!/bin/bash
# test/citus/build_citus.sh — build Citus into the server under test, once.
#
#   test/citus/build_citus.sh PG_CONFIG
#
# Builds Citus from its public source (release archives of
# github.com/citusdata/citus, kept outside this repository: the directory
# SRMSORT_CITUS_SRC, by default ../shared/vendor/citus beside the
# repository, with a SHA256SUMS file) and installs it into the server that
# PG_CONFIG names, unless that server already has this build.  Which
# release: the newest whose supported majors include the server's
# (RELEASES below).  The build directory is
# ${SRMSORT_CITUS_CACHE:-/var/cache/srmsort-citus}/<major>, outside the
# repository; "stamp" there names the archive and the server's version,
# and a different one builds anew.  Needs Debian's libzstd-dev, liblz4-dev
# libkrb5-dev and libcurl4-openssl-dev (the Debian roots carry them;
# installed here as root when missing).
#
# Exit status: 0 Citus installed (now or before), 77 not possible here (no
# release supports the major, or no source while SRMSORT_REQUIRE_CITUS is
# unset: the reason on stdout as "SKIP: ..."), 1 the build failed (log tail
# on stderr).
set -euo pipefail

PG_CONFIG=${1:?usage: $0 PG_CONFIG}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
SRC=${SRMSORT_CITUS_SRC:-$REPO/../shared/vendor/citus}
CACHE=${SRMSORT_CITUS_CACHE:-/var/cache/srmsort-citus}
# libcurl: PostgreSQL 18's pg_config.h defines HAVE_LIBCURL (for OAuth),
# and Citus then calls curl even when configured --without-libcurl, which
# leaves it unlinked; so Citus is built with libcurl (its anonymous
# statistics stay off: this build does not define
# ENABLE_CITUS_STATISTICS_COLLECTION)
DEPS="libzstd-dev liblz4-dev libkrb5-dev libcurl4-openssl-dev"

# archive and the PostgreSQL majors it supports, newest first
RELEASES="citus-14.0.1.tar.gz:16,17,18
citus-13.2.2.tar.gz:15,16,17"

say() { printf 'build_citus: %s\n' "$*" >&2; }
skip() { echo "SKIP: $*"; exit 77; }

version=$("$PG_CONFIG" --version)
major=$(sed -E 's/^PostgreSQL ([0-9]+).*/\1/' <<<"$version")
archive=""
for r in $RELEASES; do
    case ",${r#*:}," in *",$major,"*) archive=${r%%:*}; break ;; esac
done
[ -n "$archive" ] ||
    skip "no Citus release supports PostgreSQL $major (Citus 14.0.1 stops at 18)"
if [ ! -f "$SRC/$archive" ]; then
    why="no Citus source: $SRC/$archive is missing (SRMSORT_CITUS_SRC names the directory)"
    [ -z "${SRMSORT_REQUIRE_CITUS:-}" ] || { say "$why, and SRMSORT_REQUIRE_CITUS is set"; exit 1; }
    skip "$why"
fi

dir=$CACHE/$major
stamp="$archive $version (recipe 2: with libcurl)"
pkglibdir=$("$PG_CONFIG" --pkglibdir)
sharedir=$("$PG_CONFIG" --sharedir)
if [ -f "$dir/stamp" ] && [ "$(cat "$dir/stamp")" = "$stamp" ] &&
    [ -f "$pkglibdir/citus.so" ] && [ -f "$sharedir/extension/citus.control" ]; then
    exit 0
fi

[ -w "$pkglibdir" ] || { say "cannot write to $pkglibdir: run as root"; exit 1; }
missing=""
for p in $DEPS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    say "installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get install -y -q $missing || { apt-get update -q && apt-get install -y -q $missing; }; } \
        >/dev/null 2>&1 || { say "could not install$missing"; exit 1; }
fi

(cd "$SRC" && grep " $archive\$" SHA256SUMS | sha256sum -c --quiet -) ||
    { say "$SRC/$archive does not match its SHA256SUMS line"; exit 1; }

mkdir -p "$CACHE"
exec 9>"$dir.lock"
flock 9
rm -rf "$dir"
mkdir -p "$dir/src"
log=$dir/build.log
t0=$SECONDS
say "building ${archive%.tar.gz} for PostgreSQL $major (log: $log)"
tar -xzf "$SRC/$archive" -C "$dir/src" --strip-components=1
cd "$dir/src"
# Citus 13.2.2 keeps a static copy of have_createdb_privilege for servers
# that did not export it; 15.20 and later 15s do, and the two clash.
inc=$("$PG_CONFIG" --includedir-server)
if grep -q 'have_createdb_privilege' "$inc/commands/dbcommands.h" 2>/dev/null &&
    grep -q '^have_createdb_privilege(void)' src/include/pg_version_compat.h; then
    perl -0pi -e 's/static inline bool\nhave_createdb_privilege\(void\)\n\{.*?\n\}\n//s' \
        src/include/pg_version_compat.h
    echo "removed Citus's static have_createdb_privilege (the server exports it)" >>"$log"
fi
{
    ./configure PG_CONFIG="$PG_CONFIG" &&
        make -j"${SRMSORT_JOBS:-2}" with_llvm=no &&
        make install with_llvm=no
} >>"$log" 2>&1 || {
    tail -n 30 "$log" >&2
    say "the build failed (log: $log)"
    exit 1
}
echo "$stamp" >"$dir/stamp"
say "Citus ${archive%.tar.gz} installed into PostgreSQL $major in $((SECONDS - t0)) s"
