#!/usr/bin/env python3
"""Turn h5sf-bench CSV into Markdown tables (medians, ratios) and gnuplot charts.

usage: bench-report.py CSV OUTDIR MIB STRIPE REPS [CMA] [COUNT] [BIND]
Writes the tables to OUTDIR/bench-results.md and the charts to OUTDIR/img/.
docs/performance.md's headline table comes from docs/performance-headline.csv
instead (scripts/bench-headline.py import, then render).
"""
import csv, os, statistics, subprocess, sys
from collections import defaultdict

path, out, mib, stripe, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
cma = sys.argv[6] if len(sys.argv) > 6 else "no"
count = int(sys.argv[7]) if len(sys.argv) > 7 else 0
bind = sys.argv[8] if len(sys.argv) > 8 else ""
runs = defaultdict(lambda: ([], []))
bad = 0
for r in csv.DictReader(open(path)):
    if r["ok"] != "ok":
        bad += 1
        continue
    key = (int(r["ranks"]), r["workload"], r["driver"], r["xfer"])
    runs[key][0].append(float(r["write_rate"]))
    runs[key][1].append(float(r["read_rate"]))
med = {k: (statistics.median(w), statistics.median(rd)) for k, (w, rd) in runs.items()}
ranks = sorted({k[0] for k in med})
workloads = [w for w in ("contiguous", "strided", "multi", "metadata", "chunked") if any(k[1] == w for k in med)]
# h5sf-bench's small workload names its transfer size (small-4096, ...).
workloads += sorted({k[1] for k in med if k[1].startswith("small-")}, key=lambda w: int(w.split("-")[1]))
drivers = ["h5sf-ioc", "h5sf-direct", "subfiling", "mpio", "posix"]

def get(n, wl, drv, x):
    return med.get((n, wl, drv, "-" if drv == "posix" else x))

lines = [f"Run: {reps} repetitions (median), {mib} MiB per rank, stripe size {stripe} bytes, "
         f"one IOC per node for h5sf (IOC channel) and the built-in driver, "
         + (f"{count} subfiles for both. " if count > 0 else "one subfile per IOC for both (their default). ")
         + (f"Ranks bound with mpiexec --bind-to {bind}. " if bind else "") +
         f"Open MPI single-copy transport (CMA) for all drivers: {cma}. "
         f"Rates in MiB/s (metadata: datasets per second). Runs that failed verification: {bad}.", ""]
for x in ("independent", "collective"):
    for n in ranks:
        lines += [f"### {n} rank(s), {x} transfers", "",
                  "| workload | op | h5sf IOC | h5sf direct | built-in subfiling | MPI-IO | POSIX | "
                  "IOC ÷ built-in | IOC ÷ MPI-IO | direct ÷ MPI-IO | IOC ÷ POSIX |",
                  "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for wl in workloads:
            for op, i in (("write", 0), ("read", 1)):
                vals = {d: get(n, wl, d, x) for d in drivers}
                if wl not in ("contiguous", "strided") and not wl.startswith("small-"):
                    vals["posix"] = None
                def v(d):
                    return f"{vals[d][i]:.0f}" if vals[d] else "–"
                def ratio(a, b):
                    return f"{vals[a][i] / vals[b][i]:.2f}×" if vals[a] and vals[b] and vals[b][i] > 0 else "–"
                lines.append(f"| {wl} | {op} | {v('h5sf-ioc')} | {v('h5sf-direct')} | {v('subfiling')} | "
                             f"{v('mpio')} | {v('posix')} | {ratio('h5sf-ioc', 'subfiling')} | "
                             f"{ratio('h5sf-ioc', 'mpio')} | {ratio('h5sf-direct', 'mpio')} | "
                             f"{ratio('h5sf-ioc', 'posix')} |")
        lines.append("")

# The performance targets at 4 ranks (or the largest count run),
# independent transfers: (workload, min ratio vs built-in, min vs MPI-IO).
TARGETS = [("strided", 50.0, 1.0), ("contiguous", 2.0, 0.7), ("multi", 2.0, 0.7), ("metadata", 1.0, 0.5)]
tn = 4 if 4 in ranks else (ranks[-1] if ranks else None)
if tn is not None:
    lines += [f"### Targets ({tn} ranks, independent transfers)", "",
              "Ratios of medians from this run; ✓ where the target is met.", "",
              "| workload | op | channel | ÷ built-in (target) | ÷ MPI-IO (target) |",
              "| --- | --- | --- | ---: | ---: |"]
    def mark(r, t):
        return "–" if r is None else f"{r:.2f}× {'✓' if r >= t else '✗'} (≥ {t:g})"
    for wl, tb, tm in TARGETS:
        for op, i in (("write", 0), ("read", 1)):
            for ch in ("h5sf-ioc", "h5sf-direct"):
                a, b, m = get(tn, wl, ch, "independent"), get(tn, wl, "subfiling", "independent"), \
                    get(tn, wl, "mpio", "independent")
                rb = a[i] / b[i] if a and b and b[i] > 0 else None
                rm = a[i] / m[i] if a and m and m[i] > 0 else None
                lines.append(f"| {wl} | {op} | {ch[5:]} | {mark(rb, tb)} | {mark(rm, tm)} |")
    for ch in ("h5sf-ioc", "h5sf-direct"):
        a, p = get(tn, "contiguous", ch, "independent"), get(tn, "contiguous", "posix", "independent")
        r = a[0] / p[0] if a and p and p[0] > 0 else None
        lines.append(f"| contiguous | write | {ch[5:]} ÷ POSIX fpp | | {mark(r, 0.5)} |")
    lines.append("")

# Charts: write rate by rank count, one PNG per workload (independent).
img = os.path.join(out, "img")
os.makedirs(img, exist_ok=True)
charts = []
for wl in workloads:
    for op, i in (("write", 0), ("read", 1)):
        dat = os.path.join(img, f"{wl}-{op}.dat")
        with open(dat, "w") as f:
            f.write("ranks " + " ".join(drivers) + "\n")
            for n in ranks:
                row = [get(n, wl, d, "independent") for d in drivers]
                f.write(f"{n} " + " ".join(f"{r[i]:.1f}" if r else "NaN" for r in row) + "\n")
        # Only drivers measured for this workload (POSIX: contiguous and strided).
        shown = [(k, d) for k, d in enumerate(drivers) if any(get(n, wl, d, "independent") for n in ranks)]
        png = os.path.join(img, f"{wl}-{op}.png")
        # Log scale: the built-in driver's strided rates are 100x below the rest.
        script = (f"set terminal png size 720,400; set output '{png}'; set key outside right; "
                  f"set logscale y; set logscale x 2; set xrange [{min(ranks) * 0.8}:{max(ranks) * 1.25}]; "
                  f"set title '{wl} {op} (independent)'; set xlabel 'ranks'; "
                  f"set ylabel '{'datasets/s' if wl == 'metadata' else 'MiB/s'}'; set style data linespoints; "
                  f"set xtics ({', '.join(str(n) for n in ranks)}); "
                  f"plot " + ", ".join(f"'{dat}' using 1:{k + 2} title '{d}'" for k, d in shown))
        try:
            subprocess.run(["gnuplot", "-e", script], check=True, capture_output=True)
            charts.append(f"![{wl} {op}](img/{wl}-{op}.png)")
        except (OSError, subprocess.CalledProcessError) as e:
            print(f"bench-report: gnuplot failed for {png}: {e}", file=sys.stderr)
        os.remove(dat)
lines += ["### Charts", ""] + charts + [""]

doc = os.path.join(out, "bench-results.md")
open(doc, "w").write(f"# scripts/bench.sh results\n\nRaw data: {os.path.basename(path)}.\n\n" + "\n".join(lines) + "\n")
sys.exit(1 if bad else 0)
