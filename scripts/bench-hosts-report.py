#!/usr/bin/env python3
"""Tables of scripts/bench-hosts.sh: medians, the issue's three ratios, node-local
storage, and the per-call stage account of the IOC channel.

usage: bench-hosts-report.py HOSTS_CSV ACCOUNT_CSV OUT_MD MIB REPS
HOSTS_CSV: mpi,hosts,ppn,io,storage + h5sf-bench's columns (every run).
ACCOUNT_CSV: mpi,hosts,ppn + h5sf-bench --account's columns (may be absent).
"""
import csv, os, statistics, sys
from collections import defaultdict

hosts_csv, acct_csv, out_md, mib, reps = sys.argv[1:6]
runs = defaultdict(lambda: ([], []))
bad = 0
for r in csv.DictReader(open(hosts_csv)):
    if r["ok"] != "ok":
        bad += 1
        continue
    k = (r["mpi"], int(r["hosts"]), int(r["ppn"]), r["storage"], r["workload"], r["driver"], r["io"], r["xfer"])
    runs[k][0].append(float(r["write_rate"]))
    runs[k][1].append(float(r["read_rate"]))
med = {k: (statistics.median(w), statistics.median(rd), len(w)) for k, (w, rd) in runs.items()}
setups = sorted({k[:3] for k in med})
ORDER = ["contiguous", "strided", "multi", "metadata", "chunked"]
wls = [w for w in ORDER if any(k[4] == w for k in med)]
wls += sorted({k[4] for k in med if k[4].startswith("small-")}, key=lambda w: int(w.split("-")[1]))


def get(s, st, wl, drv, io="-", x=None):
    x = x or ("independent" if wl.startswith("small-") else "collective")
    return med.get(s + (st, wl, drv, io, x))


def indep_io(s):
    return "ompio" if s[0] == "openmpi" else "romio"


def f(v, i):
    return f"{v[i]:.0f}" if v else "–"


def ratio(a, b, i, target=None):
    if not a or not b or b[i] <= 0:
        return "–"
    r = a[i] / b[i]
    return f"{r:.2f}×" + ("" if target is None else (" ✓" if r >= target else " ✗"))


def best(vals, i):
    vals = [v for v in vals if v]
    return max(vals, key=lambda v: v[i]) if vals else None


ns = sorted({v[2] for v in med.values()})
reps = str(ns[0]) if len(ns) == 1 else f"{ns[0]}-{ns[-1]}" if ns else "0"
lines = [f"Run: median of {reps} interleaved repetitions, {mib} MiB per rank; MiB/s "
         f"(metadata: datasets/s). h5sf columns: collective transfers (small: independent, one "
         f"H5Dwrite/H5Dread per piece). Runs that failed verification: {bad}.", ""]
for s in setups:
    mpi, h, p = s
    lines += [f"### {mpi}, {h} hosts × {p} ranks, shared directory", "",
              "| workload | op | h5sf auto | h5sf IOC | h5sf direct | MPI-IO indep. | MPI-IO coll. OMPIO | "
              "MPI-IO coll. ROMIO | IOC ÷ best coll. (≥ 1.0) | IOC ÷ indep. | auto ÷ best h5sf (≥ 0.9) |",
              "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for wl in wls:
        for op, i in (("write", 0), ("read", 1)):
            a, ioc, d = (get(s, "shared", wl, x) for x in ("h5sf-auto", "h5sf-ioc", "h5sf-direct"))
            ind = get(s, "shared", wl, "mpio", indep_io(s), "independent")
            om = get(s, "shared", wl, "mpio", "ompio") if not wl.startswith("small-") else None
            ro = get(s, "shared", wl, "mpio", "romio") if not wl.startswith("small-") else None
            coll_target = 1.0 if wl in ("contiguous", "strided", "multi") else None
            ind_target = 0.8 if wl == "metadata" else None
            lines.append(f"| {wl} | {op} | {f(a, i)} | {f(ioc, i)} | {f(d, i)} | {f(ind, i)} | {f(om, i)} | "
                         f"{f(ro, i)} | {ratio(ioc, best([om, ro], i), i, coll_target)} | "
                         f"{ratio(ioc, ind, i, ind_target)} | {ratio(a, best([ioc, d], i), i, 0.9)} |")
    lines.append("")
    if any(k[:4] == s + ("local",) for k in med):
        lines += [f"### {mpi}, {h} hosts × {p} ranks, subfiles on node-local storage", "",
                  "h5sf with `subfile_dir` on each host's own directory (only the IOC channel can serve "
                  "it) against MPI-IO collective writing the shared directory, same repetitions.", "",
                  "| workload | op | h5sf IOC, node-local | h5sf auto, node-local | h5sf IOC, shared | "
                  "best MPI-IO coll., shared | IOC node-local ÷ best MPI-IO coll. |",
                  "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
        for wl in wls:
            if wl.startswith("small-"):
                continue
            for op, i in (("write", 0), ("read", 1)):
                li, la = get(s, "local", wl, "h5sf-ioc"), get(s, "local", wl, "h5sf-auto")
                si = get(s, "shared", wl, "h5sf-ioc")
                b = best([get(s, "shared", wl, "mpio", "ompio"), get(s, "shared", wl, "mpio", "romio")], i)
                lines.append(f"| {wl} | {op} | {f(li, i)} | {f(la, i)} | {f(si, i)} | {f(b, i)} | "
                             f"{ratio(li, b, i)} |")
        lines.append("")

STAGES = ["call", "pack", "post", "wait", "header", "queue", "payload", "io", "reply"]
if os.path.exists(acct_csv) and os.path.getsize(acct_csv) > 0:
    rows = list(csv.DictReader(open(acct_csv)))
    lines += ["### Per-call account of the IOC channel (h5sf-ioc)", "",
              "One H5Dwrite and one H5Dread of each workload (metadata: per dataset, the phase's total divided "
              "by its datasets; small: per rank's call), summed over all ranks and threads; call ms: the "
              "call's time as its ranks see it. Requests: those sent to another "
              "rank's IOC (each one round trip); messages: their MPI messages, both ways (header, payload "
              "parts, reply). Copied: bytes the client copied into a payload buffer. Times in ms per call; "
              "client stages: pack (payload copy, piece list), post (MPI posting), wait (post to reply: "
              "the round trip); IOC stages: header receive, queue, payload (waiting for the payload to "
              "arrive or leave over MPI), pwritev/preadv, reply.", "",
              "| MPI | workload | op | call ms | requests | messages | copied KiB | over MPI KiB | pack | post | "
              "wait | header | queue | payload | io | reply | largest IOC stage |",
              "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
              "---: | ---: | --- |"]
    for r in rows:
        # small: every rank makes `calls` independent calls; the others are
        # collective, all ranks in one call (metadata: one per dataset).
        n = max(int(r["calls"]), 1) * (int(r["ranks"]) if r["workload"].startswith("small-") else 1)
        ms = {s: int(r[f"{s}_ns"]) / 1e6 / n for s in STAGES}
        ioc = max(("queue", "payload", "io", "reply", "header"), key=lambda s: ms[s])
        lines.append(f"| {r['mpi']} {r['hosts']}×{r['ppn']} | {r['workload']} | {r['op']} | "
                     f"{float(r['call_s']) * 1e3 / max(int(r['calls']), 1):.3f} | {int(r['wait_n']) / n:.2f} | "
                     f"{int(r['messages']) / n:.2f} | {int(r['pack_bytes']) / 1024 / n:.0f} | "
                     f"{int(r['post_bytes']) / 1024 / n:.0f} | "
                     + " | ".join(f"{ms[s]:.3f}" for s in STAGES[1:]) + f" | {ioc} |")
    lines.append("")

open(out_md, "w").write("# scripts/bench-hosts.sh results\n\n" + "\n".join(lines) + "\n")
sys.exit(1 if bad else 0)
