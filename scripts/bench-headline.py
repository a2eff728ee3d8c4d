#!/usr/bin/env python3
"""The headline table of docs/performance.md, from docs/performance-headline.csv.

usage:
  bench-headline.py render [--csv CSV] [--doc DOC] [--img PNG] [--setting NAME]
      Rewrites the text between <!-- BEGIN HEADLINE --> and <!-- END HEADLINE -->
      in DOC (default docs/performance.md) and the chart PNG (default
      docs/img/headline.png) from CSV (default docs/performance-headline.csv),
      from the rows of setting NAME only (default "defaults": what a user
      gets; "all": every setting).
  bench-headline.py import RAW.csv --date YYYY-MM-DD --machine TEXT [--mpi TEXT]
                    [--setting TEXT] [--config TEXT] [--drop-first] [--into CSV]
      Turns the runs of h5sf-bench (its own CSV, as scripts/bench.sh writes it
      to performance-data.csv, or scripts/bench-headline.sh's, which adds the
      columns mpi, setting, config and round) into medians, one row per
      (MPI, setting, ranks, workload, driver), independent transfers only, and
      appends them to CSV (default: print them).  --drop-first leaves out
      repetition 1 of every h5sf-bench process that made more than one (the
      first run after start-up pays for it).  --mpi, --setting and --config label rows whose raw line
      has no such column.

The headline CSV has one row per cell of the table:
  date      YYYY-MM-DD of the measurement
  machine   cores, memory, file system ("16 cores (x86-64, 128 GiB), tmpfs")
  mpi       MPI library and transport ("Open MPI 4.1.4, CMA")
  ranks     MPI ranks, all on one node
  mib       MiB per rank
  setting   short name of the settings ("defaults", "tuned")
  config    what the settings are, in words (the same for every row of a setting)
  workload  contiguous, strided, multi, metadata (empty: a row that only says
            why a whole MPI or setting is missing, in note)
  driver    h5sf-direct, h5sf-ioc, subfiling (HDF5's built-in), mpio, posix
  write     median MiB/s (metadata: datasets/s); empty when not measured
  read      the same for reads
  n         runs in the median
  note      why a cell is missing, or what to know about it: a footnote; several
            are separated by "|"

Rendering: one table per (date, machine), in the order the machines first
appear in the CSV, with rows (MPI, ranks, setting, workload) and a column
per driver, "write / read".  For each (machine, MPI) only the latest date
is shown; the CSV keeps earlier runs.  A cell without
a row says "not measured".  The chart shows one block of the first table (the
most workloads against MPI-IO, then the fewest ranks, then the defaults),
each rate divided by MPI-IO's in the same row.
"""
import csv, os, statistics, subprocess, sys
from collections import OrderedDict, defaultdict

COLUMNS = ["date", "machine", "mpi", "ranks", "mib", "setting", "config", "workload", "driver",
           "write", "read", "n", "note"]
DRIVERS = [("h5sf-direct", "h5sf direct"), ("h5sf-ioc", "h5sf IOC"), ("subfiling", "built-in subfiling"),
           ("mpio", "MPI-IO"), ("posix", "POSIX")]
WORKLOADS = ["contiguous", "strided", "multi", "metadata"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- BEGIN HEADLINE -->", "<!-- END HEADLINE -->"


def arg(argv, name, default=None):
    if name in argv:
        i = argv.index(name)
        return argv[i + 1]
    return default


def fmt(v):
    return "" if v in ("", None) else f"{float(v):.0f}"


def render(argv):
    path = arg(argv, "--csv", os.path.join(ROOT, "docs", "performance-headline.csv"))
    doc = arg(argv, "--doc", os.path.join(ROOT, "docs", "performance.md"))
    png = arg(argv, "--img", os.path.join(ROOT, "docs", "img", "headline.png"))
    setting = arg(argv, "--setting", "defaults")
    rows = [r for r in csv.DictReader(open(path)) if setting in ("all", r["setting"])]
    latest = {}
    for r in rows:
        k = (r["machine"], r["mpi"])
        latest[k] = max(latest.get(k, ""), r["date"])
    earlier = defaultdict(set)
    for r in rows:
        if r["date"] != latest[(r["machine"], r["mpi"])]:
            earlier[(r["machine"], r["mpi"])].add(r["date"])
    # Tables keep the order in which their machine first appears in the CSV.
    first = {}
    for i, r in enumerate(rows):
        first.setdefault(r["machine"], i)
    rows = [r for r in rows if r["date"] == latest[(r["machine"], r["mpi"])]]
    tables = OrderedDict()
    for r in sorted(rows, key=lambda r: first[r["machine"]]):
        tables.setdefault((r["date"], r["machine"]), []).append(r)
    out, chart = [], None
    for (date, machine), trs in tables.items():
        drivers = [(d, name) for d, name in DRIVERS if any(r["driver"] == d for r in trs)]
        settings = list(OrderedDict.fromkeys(r["setting"] for r in trs if r["workload"]))
        blocks = OrderedDict()  # (mpi, ranks, setting) -> rows
        for r in trs:
            blocks.setdefault((r["mpi"], r["ranks"], r["setting"]), []).append(r)
        out += [f"### {date}, {machine}", ""]
        captions = OrderedDict()  # one line per distinct description, naming its MPIs and settings
        for mpi, setting in OrderedDict.fromkeys((k[0], k[2]) for k in blocks):
            rs = [r for k, v in blocks.items() if (k[0], k[2]) == (mpi, setting) for r in v
                  if r["write"] or r["read"]]
            if not rs:
                continue
            ns = sorted({int(x) for r in rs for x in r["n"].split("-") if x})
            mibs = sorted({r["mib"] for r in rs if r["mib"]}, key=float)
            cfg = next((r["config"] for r in rs if r["config"]), "")
            what = (f"{cfg}; {' or '.join(mibs)} MiB per rank; "
                    f"median of {'-'.join(str(n) for n in dict.fromkeys([ns[0], ns[-1]]))} runs" if ns else cfg)
            captions.setdefault(what, []).append(f"{mpi}, {setting}" if len(settings) > 1 else mpi)
        out += [f"- **{'; '.join(labels)}**: {what}." for what, labels in captions.items()] + [""]
        head = ["MPI", "ranks"] + (["setting"] if len(settings) > 1 else []) + ["workload"] + [n for _, n in drivers]
        out += ["| " + " | ".join(head) + " |",
                "| " + " | ".join(["---"] * (len(head) - len(drivers)) + ["---:"] * len(drivers)) + " |"]
        notes = OrderedDict()

        def mark(note):
            keys = [notes.setdefault(t.strip(), len(notes) + 1) for t in note.split("|") if t.strip()]
            return f"<sup>{','.join(str(k) for k in keys)}</sup>" if keys else ""

        for (mpi, ranks, setting), rs in blocks.items():
            wls = [w for w in WORKLOADS if any(r["workload"] == w for r in rs)]
            wls += sorted({r["workload"] for r in rs if r["workload"] and r["workload"] not in WORKLOADS})
            lead = [mpi, ranks] + ([setting] if len(settings) > 1 else [])
            for r in rs:
                if not r["workload"]:
                    out.append("| " + " | ".join(lead + ["–"] + ["not measured" + mark(r["note"]) if i == 0 else ""
                                                                for i in range(len(drivers))]) + " |")
            for wl in wls:
                cells = []
                for d, _ in drivers:
                    r = next((r for r in rs if r["workload"] == wl and r["driver"] == d), None)
                    if r is None:
                        cells.append("not measured")
                        continue
                    w, rd = fmt(r["write"]), fmt(r["read"])
                    text = f"{w or '–'} / {rd or '–'}" if (w or rd) else "not measured"
                    cells.append(text + mark(r["note"]))
                out.append("| " + " | ".join(lead + [wl] + cells) + " |")
        out.append("")
        for text, k in notes.items():
            out.append(f"<sup>{k}</sup> {text}  ")
        if notes:
            out.append("")
        for key in sorted(earlier):
            if key[0] == machine and latest[key] == date:
                out += [f"Earlier runs of {key[1]} on this machine in `performance-headline.csv`: "
                        f"{', '.join(sorted(earlier[key]))}.", ""]
        if chart is None:
            chart = chart_data(trs, date, machine)
    if chart:
        out += [f"![h5sf and the built-in driver against MPI-IO]({os.path.relpath(png, os.path.dirname(doc))})", ""]
        plot(chart, png)
    text = open(doc).read()
    a, b = text.index(BEGIN), text.index(END)
    open(doc, "w").write(text[:a] + BEGIN + "\n" + "\n".join(out) + text[b:])


def chart_data(rows, date, machine):
    """Rates over MPI-IO's, per workload and op, of the block described in the module's comment."""
    by = defaultdict(dict)
    for r in rows:
        if r["workload"]:
            by[(r["mpi"], r["ranks"], r["setting"])][(r["workload"], r["driver"])] = r
    for key in sorted(by, key=lambda k: (-sum(1 for w in WORKLOADS if (w, "mpio") in by[k]), int(k[1]),
                                         k[2] != "defaults")):
        cells = by[key]
        drivers = [d for d, _ in DRIVERS if d not in ("mpio", "posix")
                   and any(k[1] == d and cells[k]["write"] + cells[k]["read"] for k in cells)]
        lines = []
        for wl in WORKLOADS:
            m = cells.get((wl, "mpio"))
            if not m:
                continue
            for op in ("write", "read"):
                vals = []
                for d in drivers:
                    r = cells.get((wl, d))
                    ok = r and r[op] and m[op] and float(m[op]) > 0
                    vals.append(f"{float(r[op]) / float(m[op]):.3f}" if ok else "NaN")
                lines.append(f'"{wl}\\n{op}" ' + " ".join(vals))
        if lines:
            return {"title": f"{key[1]} ranks, {key[0]}, {date}, {machine}", "drivers": drivers, "lines": lines}
    return None


def plot(chart, png):
    names = dict(DRIVERS)
    dat = png + ".dat"
    with open(dat, "w") as f:
        f.write("\n".join(chart["lines"]) + "\n")
    plots = ", ".join(f"'{dat}' using {k + 2}:xtic(1) title '{names[d]}'" for k, d in enumerate(chart["drivers"]))
    script = ("set terminal png size 960,460; " f"set output '{png}'; "
              "set style data histograms; set style histogram clustered gap 1; set style fill solid 0.8 border -1; "
              "set key top right; set grid ytics; set yrange [0:*]; set bmargin 4; set xtics font ',10'; "
              "set ylabel 'rate / MPI-IO rate in the same run'; "
              f"set title \"{chart['title']}\\nwrite and read rates over MPI-IO's (no bar: not measured)\" noenhanced; "
              "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 2; "
              f"plot {plots}")
    try:
        subprocess.run(["gnuplot", "-e", script], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"bench-headline: gnuplot failed for {png}: {e}", file=sys.stderr)
    finally:
        os.remove(dat)


def import_raw(argv):
    raw = argv[0]
    date, machine = arg(argv, "--date"), arg(argv, "--machine")
    if not date or not machine:
        sys.exit("bench-headline: import needs --date and --machine")
    runs = defaultdict(lambda: ([], [], []))  # ok writes, ok reads, failure reasons
    meta = {}
    rows = [r for r in csv.DictReader(open(raw)) if r.get("xfer") in ("independent", "-")]

    def key(r):
        return (r.get("mpi") or arg(argv, "--mpi", ""), r.get("setting") or arg(argv, "--setting", "defaults"),
                r["ranks"], r["workload"], r["driver"])

    # Repetition 1 is left out only where its processes made more than one.
    more = {key(r) for r in rows if r["rep"] not in ("", "0", "1")}
    for r in rows:
        if "--drop-first" in argv and r["rep"] == "1" and r["ok"] == "ok" and key(r) in more:
            continue
        mpi, setting = key(r)[:2]
        if r.get("config") or (mpi, setting) not in meta:
            meta[(mpi, setting)] = r.get("config") or arg(argv, "--config", "")
        w, rd, bad = runs[key(r)]
        if r["ok"] == "ok":
            w.append(float(r["write_rate"]))
            rd.append(float(r["read_rate"]))
            mib = int(r["bytes_per_rank"] or 0) >> 20
            if mib:
                meta[(mpi, setting, r["ranks"])] = max(mib, meta.get((mpi, setting, r["ranks"]), 0))
        else:
            bad.append(r["ok"])
    out = []
    for (mpi, setting, ranks, wl, drv), (w, rd, bad) in runs.items():
        note = ""
        skipped = sorted({b for b in bad if b.startswith("not run")})
        bad = [b for b in bad if not b.startswith("not run")]
        if skipped:
            note = "; ".join(skipped)
        elif bad:
            reasons = ", ".join(f"{n} × {why}" for why, n in sorted({b: bad.count(b) for b in bad}.items()))
            note = f"runs that did not complete: {reasons}"
        out.append({"date": date, "machine": machine, "mpi": mpi, "ranks": ranks,
                    "mib": meta.get((mpi, setting, ranks), ""), "setting": setting,
                    "config": meta.get((mpi, setting), ""), "workload": wl, "driver": drv,
                    "write": f"{statistics.median(w):.0f}" if w else "",
                    "read": f"{statistics.median(rd):.0f}" if rd else "", "n": str(len(w)) if w else "",
                    "note": note})
    into = arg(argv, "--into")
    f = open(into, "a", newline="") if into else sys.stdout
    wr = csv.DictWriter(f, COLUMNS, lineterminator="\n")
    if not into or os.path.getsize(into) == 0:
        wr.writeheader()
    wr.writerows(out)


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("render", "import"):
        sys.exit(__doc__)
    render(sys.argv[2:]) if sys.argv[1] == "render" else import_raw(sys.argv[2:])
