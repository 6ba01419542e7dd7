#!/bin/bash
# bench/perf_watch.sh QUEUE — the host side of bench/profile.sh --perf.
#
# A server in a Debian root (17-19) cannot run the host's perf, but its
# backends are the host's processes: profile.sh, before it enters the
# root, starts this watcher on a queue directory inside the repository
# (which the root sees at the same path).  For each NAME.pid the profile
# writes there (a backend's pid, the session about to run one query), it
# attaches `perf record -e cpu-clock -g` (the VM has no hardware
# counters), says so with NAME.attached, and when the backend exits turns
# the samples into NAME.json, CPU time by phase (bench/perf_phases.py), and
# NAME.done.  QUEUE/stop ends it, once the queue is empty, or the end of
# OWNER, the profile's process (its pid stays through the exec into the
# root), which also removes the queue.
set -uo pipefail
Q=${1:?usage: perf_watch.sh QUEUE OWNER}
OWNER=${2:?usage: perf_watch.sh QUEUE OWNER}
HERE=$(cd "$(dirname "$0")" && pwd)
FREQ=${SRM_PERF_FREQ:-997}

while :; do
    found=0
    for f in "$Q"/*.pid; do
        [ -e "$f" ] || continue
        found=1
        name=$(basename "$f" .pid)
        pid=$(tr -dc '0-9' <"$f")
        mv "$f" "$Q/$name.taken"
        perf record -e cpu-clock -F "$FREQ" -g -p "$pid" -o "$Q/$name.data" \
            >"$Q/$name.record.log" 2>&1 &
        rec=$!
        # perf takes a moment to attach; the session waits for this file
        sleep 1
        touch "$Q/$name.attached"
        wait "$rec"
        perf script -i "$Q/$name.data" -F comm,tid,period,ip,sym,dso \
            >"$Q/$name.script" 2>"$Q/$name.script.log"
        perf buildid-list -i "$Q/$name.data" >"$Q/$name.buildids" 2>/dev/null
        python3 "$HERE/perf_phases.py" --script "$Q/$name.script" \
            --buildids "$Q/$name.buildids" --name "$name" \
            >"$Q/$name.json" 2>"$Q/$name.py.log"
        rm -f "$Q/$name.script"
        touch "$Q/$name.done"
    done
    if [ "$found" = 0 ] && [ -e "$Q/stop" ]; then
        break
    fi
    if ! kill -0 "$OWNER" 2>/dev/null; then
        rm -rf "$Q"
        break
    fi
    sleep 0.2
done
