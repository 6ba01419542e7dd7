# throwaway diagnosis: one query per fresh session, systems alternated, with
# the backend's rusage (log_statement_stats)
#   diag_wide.py wide:1000000:1GB,int8:10000000:1GB REPS
import sys, re, subprocess
sys.path.insert(0, "/work/diag/bench")
import bench
configs = {
 "native": "SET srmsort.enabled = off;",
 "srm": "SET srmsort.enabled = on;",
 "srm_nohuge": "SET srmsort.enabled = on; SET srmsort.huge_pages = off;",
}
cases = [c.split(":") for c in sys.argv[1].split(",")]
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
for ds, rows, wm in cases:
    table, _ = bench.ensure_table(ds, int(rows))
    q = "SELECT * FROM %s ORDER BY k OFFSET 1e12" % table
    for rep in range(reps):
        for name, setup in configs.items():
            sql = ("\\timing on\nSET work_mem = '%s'; SET max_parallel_workers_per_gather = 0; %s\n"
                   "SET log_statement_stats = on; SET client_min_messages = log;\n%s;\n" % (wm, setup, q))
            p = subprocess.run(["psql", "-X", "-At", "-f", "-"], input=sql, capture_output=True, text=True)
            ms = re.findall(r"Time: ([0-9.]+) ms", p.stdout)[-1]
            ru = (re.findall(r"([0-9.]+) s user, ([0-9.]+) s system, ([0-9.]+) s elapsed", p.stderr) or [None])[-1]
            print("%-10s %-5s %9s %-5s %9s ms  user %s sys %s" % (name, ds, rows, wm, ms,
                  ru and ru[0], ru and ru[1]), flush=True)
