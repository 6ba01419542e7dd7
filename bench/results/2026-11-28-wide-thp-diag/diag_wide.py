import sys, re, subprocess, time
sys.path.insert(0, "/work/diag/bench")
import bench
table, _ = bench.ensure_table("wide", 1000000)
q = "SELECT * FROM %s ORDER BY k OFFSET 1e12" % table
configs = {
 "native": "SET srmsort.enabled = off;",
 "srm": "SET srmsort.enabled = on;",
 "srm_sync": "SET srmsort.enabled = on; SET srmsort.io_method = sync;",
}
wm = sys.argv[1] if len(sys.argv) > 1 else "1GB"
for rep in range(int(sys.argv[2]) if len(sys.argv) > 2 else 6):
    for name, setup in configs.items():
        sql = ("SET work_mem = '%s'; SET max_parallel_workers_per_gather = 0; %s\n"
               "SET log_statement_stats = on; SET client_min_messages = log;\n%s;\n" % (wm, setup, q))
        sql = "\\timing on\n" + sql
        p = subprocess.run(["psql", "-X", "-At", "-f", "-"], input=sql, capture_output=True, text=True)
        ms = re.findall(r"Time: ([0-9.]+) ms", p.stdout)[-1]
        st = p.stderr
        ru = (re.findall(r"([0-9.]+) s user, ([0-9.]+) s system, ([0-9.]+) s elapsed", st) or [None])[-1]
        flt = (re.findall(r"(\d+/\d+) \[\d+/\d+\] page faults", st) or [None])[-1]
        vcs = (re.findall(r"(\d+/\d+) \[\d+/\d+\] voluntary/involuntary", st) or [None])[-1]
        print("%-9s %s %8s ms  user %s sys %s  faults maj/min %s  ctxsw vol/invol %s" % (
            name, wm, ms, ru and ru[0], ru and ru[1], flt, vcs), flush=True)
