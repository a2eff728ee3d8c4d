#!/usr/bin/env python3
"""check_log.py STDERR_FILE FILE -- check the H5SF_LOG=json trace of
write_read_by_name run on 4 ranks with stripe_size=64KiB,stripe_count=3,
ioc=every:2: one JSON object per open, on rank 0 only, with the layout
decision (which ranks are IOCs and why, which subfiles each owns, channel,
thread level) matching those settings.  The 4 ranks are on one node, so
channel=auto takes the direct channel (docs/configuration.md); the IOCs are
still chosen, since they fix the layout."""
import json
import sys

text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
path = sys.argv[2]
objs = []
for line in text.splitlines():
    if line.startswith('{"h5sf"'):
        objs.append(json.loads(line))  # raises on malformed JSON
errors = []


def want(cond, what):
    if not cond:
        errors.append(what)


want(len(objs) == 2, f"expected 2 JSON objects (create + read-only open, rank 0 only), got {len(objs)}")
for i, o in enumerate(objs):
    for key in ("file", "access", "ranks", "nodes", "channel", "channel_reason", "thread_level",
                "thread_level_name", "threads", "ioc_mode", "ioc_param", "ioc_reason", "ioc_count",
                "stripe_size", "stripe_count", "layout_source", "inode", "subfile_dir", "config_file", "iocs"):
        want(key in o, f"object {i}: no field {key}")
    if errors:
        break
    want(o["file"] == path, f"object {i}: file {o['file']!r}, expected {path!r}")
    want(o["ranks"] == 4, f"object {i}: ranks {o['ranks']}")
    want(o["nodes"] == 1, f"object {i}: nodes {o['nodes']}")
    want(o["channel"] == "direct", f"object {i}: channel {o['channel']}")
    want(o["channel_reason"] == "one node", f"object {i}: channel_reason {o['channel_reason']!r}")
    want(o["thread_level_name"] == "MPI_THREAD_MULTIPLE", f"object {i}: thread level {o['thread_level_name']}")
    want(o["ioc_mode"] == "every" and o["ioc_param"] == 2, f"object {i}: ioc {o['ioc_mode']}:{o['ioc_param']}")
    want("every:2" in o["ioc_reason"], f"object {i}: ioc_reason {o['ioc_reason']!r}")
    want(o["ioc_count"] == 2, f"object {i}: ioc_count {o['ioc_count']}")
    want(o["stripe_size"] == 65536 and o["stripe_count"] == 3, f"object {i}: stripes {o['stripe_size']} x {o['stripe_count']}")
    # every:2 on 4 ranks -> IOCs 0 and 2; subfile s belongs to iocs[s mod 2].
    want(o["iocs"] == [{"rank": 0, "subfiles": [0, 2]}, {"rank": 2, "subfiles": [1]}], f"object {i}: iocs {o['iocs']}")
    want(o["config_file"].endswith(f".subfile_{o['inode']}.config"), f"object {i}: config_file {o['config_file']!r}")
if len(objs) == 2 and not errors:
    want(objs[0]["access"] == "create" and objs[1]["access"] == "rdonly",
         f"access {objs[0]['access']}, {objs[1]['access']}")
    want(objs[0]["layout_source"] != objs[1]["layout_source"], "layout_source does not tell new from existing")
for e in errors:
    print("check_log.py:", e)
print("check_log.py:", "FAIL" if errors else f"OK ({len(objs)} objects)")
sys.exit(1 if errors else 0)
