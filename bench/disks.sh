#!/bin/bash
# bench/disks.sh — D bandwidth-capped "disks" on a machine with one real
# disk, for the parallel-disk benchmarks (bench/emulated_disks.sh,
# bench/concurrency.sh EMULATED=1).
#
#   bench/disks.sh up D MBPS [DIR]   D loop-device ext4 filesystems, images in
#                                    DIR (default /var/tmp/srmdisks), mounted
#                                    at $SRMDISKS_ROOT/d0..d(D-1), each capped
#                                    at MBPS MB/s (10^6 bytes) read and MBPS
#                                    write; MBPS 0: no cap
#   bench/disks.sh set MBPS[,MBPS..] change the caps of the disks that are up:
#                                    one figure for all, or one per disk
#                                    (d0 first); 0: no cap.  Data stays.
#   bench/disks.sh status            the disks, their caps, bytes moved since up
#   bench/disks.sh enter PID         put process PID (and the children it starts
#                                    later) where the caps apply
#   bench/disks.sh dropcache         write back, then evict the disks' files
#                                    from the page cache (other files keep theirs)
#   bench/disks.sh down              unmount, uncap, detach and delete all that
#                                    up made (stop the server on them first)
#
# Root only.  Each disk is a sparse image file on its own loop device
# (direct I/O to the image, so no second page cache below it), with
# mkfs.ext4 and its lazy initialisation done at once (no background writes
# later).  The cap is the cgroup's block I/O throttle on the loop device's
# MAJ:MIN, one budget per device and direction:
#   - cgroup v1 (blkio.throttle.{read,write}_bps_device) on the ROOT blkio
#     cgroup, where the kernel's writeback threads also run, so buffered
#     writes are capped too.  v1 throttling is flat: a process in a child
#     blkio cgroup escapes the caps; "enter" moves it to the root.
#   - cgroup v2 (io.max), where the io controller is on the unified
#     hierarchy: io.max cannot be set on the root cgroup, so the caps live on
#     a cgroup "srmdisks" and apply only to processes put there with "enter"
#     (their writeback is charged to them only if the memory controller is
#     on v2 as well).
# Where the kernel has them, each disk also gets a strict dirty page limit
# of SRMDISKS_DIRTY_MB so that buffered writers feel the cap rather than
# filling memory first.
#
# Environment: SRMDISKS_ROOT (/tmp/srmdisks), SRMDISKS_OWNER (user[:group]
# owning each dN, mode 0700, so that dN can be a tablespace LOCATION; without
# it dN is mode 1777), SRMDISKS_SIZE_MB (4096 per disk, sparse),
# SRMDISKS_DIRTY_MB (64; 0 keeps the kernel's default).  The state of a set
# of disks is kept in $SRMDISKS_ROOT/.state; down undoes only what is
# recorded there, and touches a loop device only while it still holds the
# image recorded for it.  A failed up undoes itself.  Nothing is changed
# when a prerequisite is missing.
set -euo pipefail

ROOT=${SRMDISKS_ROOT:-/tmp/srmdisks}
STATE=$ROOT/.state
SIZE_MB=${SRMDISKS_SIZE_MB:-4096}
DIRTY_MB=${SRMDISKS_DIRTY_MB:-64}
V2_NAME=srmdisks

die() { printf 'disks.sh: %s\n' "$*" >&2; exit 1; }
say() { printf 'disks.sh: %s\n' "$*"; }

usage() {
    echo "usage: $0 up D MBPS [DIR] | set MBPS[,MBPS...] | status | enter PID | dropcache | down" >&2
    exit 2
}

# ---- prerequisites (checked before anything changes) ----

need_root() {
    [ "$(id -u)" -eq 0 ] || die "must run as root (loop devices, mounts, cgroup I/O limits)"
}

need_tools() {
    local t
    for t in losetup mkfs.ext4 mount umount truncate findmnt blockdev; do
        command -v "$t" >/dev/null ||
            die "$t not found (Debian packages util-linux, mount, e2fsprogs)"
    done
}

need_loop() {
    [ -e /dev/loop-control ] || [ -e /dev/loop0 ] ||
        die "no loop device support (/dev/loop-control missing: the kernel lacks CONFIG_BLK_DEV_LOOP, or this container has no access to it)"
    losetup -f >/dev/null 2>&1 ||
        die "no free loop device (losetup -f failed: $(losetup -f 2>&1 | head -1))"
}

# Sets CG_KIND (v1|v2) and CG_DIR: the cgroup whose throttle applies.
find_cgroup() {
    local m
    CG_KIND=""
    CG_DIR=""
    m=$(findmnt -rn -t cgroup2 -o TARGET | head -1 || true)
    if [ -n "$m" ] && [ -f "$m/cgroup.controllers" ] &&
        grep -qw io "$m/cgroup.controllers"; then
        CG_KIND=v2
        CG_V2_ROOT=$m
        CG_DIR=$m/$V2_NAME
        return
    fi
    for m in $(findmnt -rn -t cgroup -o TARGET); do
        if [ -f "$m/blkio.throttle.read_bps_device" ]; then
            CG_KIND=v1
            CG_DIR=$m
            return
        fi
    done
    die "no cgroup I/O controller: neither cgroup v2 with the io controller (cgroup.controllers lists: $(cat "$(findmnt -rn -t cgroup2 -o TARGET | head -1)/cgroup.controllers" 2>/dev/null || echo 'no cgroup2 mount')) nor a cgroup v1 blkio hierarchy with throttling"
}

# ---- the caps ----

# cap MAJ:MIN BYTES_PER_S (0 lifts the cap)
cap() {
    local dev=$1 bps=$2
    if [ "$CG_KIND" = v1 ]; then
        echo "$dev $bps" >"$CG_DIR/blkio.throttle.read_bps_device"
        echo "$dev $bps" >"$CG_DIR/blkio.throttle.write_bps_device"
    elif [ -d "$CG_DIR" ]; then
        if [ "$bps" -eq 0 ]; then
            echo "$dev rbps=max wbps=max" >"$CG_DIR/io.max"
        else
            echo "$dev rbps=$bps wbps=$bps" >"$CG_DIR/io.max"
        fi
    fi
}

# the caps in force on MAJ:MIN, as "read R MB/s, write W MB/s"
caps_of() {
    local dev=$1 r w
    if [ "$CG_KIND" = v1 ]; then
        r=$(awk -v d="$dev" '$1 == d {print $2}' "$CG_DIR/blkio.throttle.read_bps_device")
        w=$(awk -v d="$dev" '$1 == d {print $2}' "$CG_DIR/blkio.throttle.write_bps_device")
    else
        r=$(awk -v d="$dev" '$1 == d {for (i = 2; i <= NF; i++) if ($i ~ /^rbps=/) print substr($i, 6)}' "$CG_DIR/io.max" 2>/dev/null || true)
        w=$(awk -v d="$dev" '$1 == d {for (i = 2; i <= NF; i++) if ($i ~ /^wbps=/) print substr($i, 6)}' "$CG_DIR/io.max" 2>/dev/null || true)
    fi
    printf 'read %s, write %s' "$(mbps "${r:-}")" "$(mbps "${w:-}")"
}

mbps() {
    case "$1" in
        "" | max | 0) echo "uncapped" ;;
        *) echo "$(($1 / 1000000)) MB/s" ;;
    esac
}

# ---- state: lines "cgroup DIR", "image N IMAGE", "disk N IMAGE LOOPDEV
# MAJ:MIN SECTORS_READ SECTORS_WRITTEN" (at up), "mount N DIR" in the order
# made ----

# the loop device that holds IMAGE now (empty if none)
loop_of() {
    losetup -n -O NAME -j "$1" 2>/dev/null | head -1
}

# ---- up ----

UP_DONE=0
up_failed() {
    if [ "$UP_DONE" -eq 0 ]; then
        echo "disks.sh: up failed; undoing what it did" >&2
        do_down force >&2 || true
    fi
}

do_up() {
    local D=$1 MB=$2 DIR=$3 bps probe avail i img loop dev mnt rd wr
    [[ "$D" =~ ^[0-9]+$ ]] && [ "$D" -ge 1 ] && [ "$D" -le 16 ] || die "D must be 1..16"
    [[ "$MB" =~ ^[0-9]+$ ]] || die "MBPS must be a whole number of MB/s (0: no cap)"
    [[ "$SIZE_MB" =~ ^[0-9]+$ ]] && [ "$SIZE_MB" -ge 64 ] || die "SRMDISKS_SIZE_MB must be at least 64"
    [[ "$DIRTY_MB" =~ ^[0-9]+$ ]] || die "SRMDISKS_DIRTY_MB must be a number of MB"
    if [ -n "${SRMDISKS_OWNER:-}" ]; then
        id -u "${SRMDISKS_OWNER%%:*}" >/dev/null 2>&1 || die "no user ${SRMDISKS_OWNER%%:*} (SRMDISKS_OWNER)"
    fi
    [ ! -e "$STATE" ] || die "disks are up already ($STATE): run $0 down first"
    probe=$DIR
    while [ ! -d "$probe" ]; do probe=$(dirname "$probe"); done
    avail=$(df -Pm "$probe" | awk 'NR == 2 {print $4}')
    [ "$avail" -ge $((D * SIZE_MB)) ] ||
        die "$DIR has $avail MB free, the $D images may grow to $((D * SIZE_MB)) MB (set SRMDISKS_SIZE_MB)"
    bps=$((MB * 1000000))

    trap up_failed EXIT
    mkdir -p "$DIR" "$ROOT"
    : >"$STATE"
    if [ "$CG_KIND" = v2 ]; then
        grep -qw io "$CG_V2_ROOT/cgroup.subtree_control" ||
            echo +io >"$CG_V2_ROOT/cgroup.subtree_control"
        mkdir -p "$CG_DIR"
        echo "cgroup $CG_DIR" >>"$STATE"
    fi
    for i in $(seq 0 $((D - 1))); do
        img=$DIR/d$i.img
        mnt=$ROOT/d$i
        [ ! -e "$img" ] || [ -z "$(loop_of "$img")" ] || die "$img is attached already: not ours to reuse"
        rm -f "$img"
        truncate -s "${SIZE_MB}M" "$img"
        echo "image $i $img" >>"$STATE"
        mkfs.ext4 -q -F -m 0 -E lazy_itable_init=0,lazy_journal_init=0 "$img"
        loop=$(losetup -f --show --direct-io=on "$img")
        dev=$(cat "/sys/block/${loop#/dev/}/dev")
        # the device's sectors read and written so far: status counts from here
        read -r _ _ rd _ _ _ wr _ <"/sys/block/${loop#/dev/}/stat"
        echo "disk $i $img $loop $dev $rd $wr" >>"$STATE"
        mkdir -p "$mnt"
        mount -o noatime "$loop" "$mnt"
        echo "mount $i $mnt" >>"$STATE"
        rmdir "$mnt/lost+found" 2>/dev/null || true
        if [ -n "${SRMDISKS_OWNER:-}" ]; then
            # user alone: with the user's login group
            case $SRMDISKS_OWNER in
                *:*) chown "$SRMDISKS_OWNER" "$mnt" ;;
                *) chown "$SRMDISKS_OWNER:" "$mnt" ;;
            esac
            chmod 0700 "$mnt"
        else
            chmod 1777 "$mnt"
        fi
        blockdev --setra 256 "$loop"  # 128kB readahead, a common disk's
        dirty_limit "$loop" "$DIRTY_MB"
        cap "$dev" "$bps"
        say "d$i: $mnt on $loop ($dev), $(caps_of "$dev")"
    done
    UP_DONE=1
    trap - EXIT
    [ "$CG_KIND" = v1 ] ||
        say "cgroup v2: the caps apply to processes in $CG_DIR only: use '$0 enter PID'"
}

# dirty_limit LOOPDEV MB: a strict per-device dirty page limit (0: none)
dirty_limit() {
    local bdi=/sys/block/${1#/dev/}/bdi
    [ -w "$bdi/strict_limit" ] && [ -w "$bdi/max_bytes" ] || return 0
    if [ "$2" -gt 0 ]; then
        echo $(($2 * 1024 * 1024)) >"$bdi/max_bytes"
        echo 1 >"$bdi/strict_limit"
    else
        echo 0 >"$bdi/strict_limit"
        echo 100 >"$bdi/max_ratio"
    fi
}

# ---- down: undo what the state records, last first ----

do_down() {
    local mode=${1:-} kind n a b c loop rc=0
    [ -f "$STATE" ] || { say "nothing is up"; return 0; }
    # mounts first (a busy one stops everything, unless forced)
    while read -r kind n a b c _; do
        [ "$kind" = mount ] || continue
        mountpoint -q "$a" || continue
        if ! umount "$a" 2>/dev/null; then
            if [ "$mode" = force ]; then
                umount -l "$a" || rc=1
            else
                echo "disks.sh: $a is busy; stop what uses it (or: $0 down --force):" >&2
                fuser -vm "$a" 2>&1 | grep -v '^Cannot stat' | sed 's/^/  /' >&2 || true
                return 1
            fi
        fi
        rmdir "$a" 2>/dev/null || true
    done <"$STATE"
    while read -r kind n a b c _; do
        case $kind in
            disk)
                loop=$(loop_of "$a")
                if [ "$loop" = "$b" ]; then
                    cap "$c" 0 2>/dev/null || true
                    dirty_limit "$b" 0 2>/dev/null || true
                    losetup -d "$b" || rc=1
                fi
                ;;
        esac
    done <"$STATE"
    while read -r kind n a b c _; do
        case $kind in
            image)
                if [ -z "$(loop_of "$a")" ]; then
                    rm -f "$a"
                    rmdir "$(dirname "$a")" 2>/dev/null || true
                else
                    # forced: the loop device frees itself when its last
                    # user goes; a later down deletes the image
                    echo "disks.sh: $a is still attached (in use)" >&2
                    rc=1
                fi
                ;;
            cgroup)
                if [ -d "$n" ]; then
                    # back to the root cgroup, then remove ours
                    while read -r pid; do
                        echo "$pid" >"$(dirname "$n")/cgroup.procs" 2>/dev/null || true
                    done <"$n/cgroup.procs"
                    rmdir "$n" || rc=1
                fi
                ;;
        esac
    done <"$STATE"
    if [ "$rc" -eq 0 ]; then
        rm -f "$STATE"
        rmdir "$ROOT" 2>/dev/null || true
        say "down"
    else
        echo "disks.sh: down left something behind; $STATE kept" >&2
    fi
    return "$rc"
}

# ---- status ----

do_status() {
    local kind n a b c rd0 wr0 used rd wr
    [ -f "$STATE" ] || { say "nothing is up"; return 1; }
    echo "cgroup $CG_KIND: $CG_DIR"
    while read -r kind n a b c rd0 wr0; do
        [ "$kind" = disk ] || continue
        if [ "$(loop_of "$a")" != "$b" ]; then
            echo "d$n: $b no longer holds $a"
            continue
        fi
        # sectors read and written (fields 3 and 7 of the device's stat)
        read -r _ _ rd _ _ _ wr _ <"/sys/block/${b#/dev/}/stat"
        used=$(df -Pm "$ROOT/d$n" 2>/dev/null | awk 'NR == 2 {print $3 " MB used"}')
        printf 'd%s: %s on %s (%s), %s; %s MB read, %s MB written; %s\n' \
            "$n" "$ROOT/d$n" "$b" "$c" "$(caps_of "$c")" \
            $(((rd - rd0) * 512 / 1000000)) $(((wr - wr0) * 512 / 1000000)) "${used:-not mounted}"
    done <"$STATE"
}

# ---- set: new caps on the disks that are up ----

do_set() {
    local spec=$1 kind n a b c mb ndisks list
    [ -f "$STATE" ] || die "nothing is up"
    [[ "$spec" =~ ^[0-9]+(,[0-9]+)*$ ]] || die "MBPS must be whole numbers of MB/s, one or one per disk, comma-separated"
    IFS=, read -r -a list <<<"$spec"
    ndisks=$(grep -c '^disk ' "$STATE")
    [ "${#list[@]}" -eq 1 ] || [ "${#list[@]}" -eq "$ndisks" ] ||
        die "$ndisks disks are up: give one MBPS or $ndisks"
    while read -r kind n a b c _; do
        [ "$kind" = disk ] || continue
        [ "$(loop_of "$a")" = "$b" ] || die "d$n: $b no longer holds $a"
        if [ "${#list[@]}" -eq 1 ]; then mb=${list[0]}; else mb=${list[$n]}; fi
        cap "$c" $((mb * 1000000))
        say "d$n: $(caps_of "$c")"
    done <"$STATE"
}

# ---- enter, dropcache ----

do_enter() {
    local pid=$1
    [[ "$pid" =~ ^[0-9]+$ ]] && [ -d "/proc/$pid" ] || die "no process $pid"
    [ -f "$STATE" ] || die "nothing is up"
    echo "$pid" >"$CG_DIR/cgroup.procs"
}

do_dropcache() {
    local kind n a b c
    [ -f "$STATE" ] || die "nothing is up"
    sync
    while read -r kind n a b c _; do
        [ "$kind" = mount ] && mountpoint -q "$a" || continue
        # dd's nocache with count=0 drops a whole file's cached pages
        find "$a" -xdev -type f -exec dd if={} iflag=nocache count=0 status=none \; 2>/dev/null || true
    done <"$STATE"
}

# ---- main ----

[ $# -ge 1 ] || usage
cmd=$1
shift
need_root
lockdir=/run/lock
[ -d "$lockdir" ] || lockdir=/tmp
exec 9>"$lockdir/srmdisks.lock"
flock -n 9 || die "another disks.sh is running"
case $cmd in
    up)
        [ $# -ge 2 ] && [ $# -le 3 ] || usage
        need_tools
        need_loop
        find_cgroup
        do_up "$1" "$2" "${3:-/var/tmp/srmdisks}"
        ;;
    down)
        [ $# -eq 0 ] || { [ $# -eq 1 ] && [ "$1" = --force ]; } || usage
        find_cgroup
        do_down "${1:+force}"
        ;;
    set)
        [ $# -eq 1 ] || usage
        find_cgroup
        do_set "$1"
        ;;
    status)
        find_cgroup
        do_status
        ;;
    enter)
        [ $# -eq 1 ] || usage
        find_cgroup
        do_enter "$1"
        ;;
    dropcache) do_dropcache ;;
    *) usage ;;
esac
