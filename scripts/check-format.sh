#!/usr/bin/env bash
# Check (default) or apply the C style of .clang-format.
#   scripts/check-format.sh            list files that differ; exit 1 if any
#   scripts/check-format.sh --fix      rewrite them in place
#   scripts/check-format.sh FILE...    check only these files
# The style is pinned to clang-format 14 (Debian 12): other versions break
# lines differently, so a check with another one would fail on a clean tree.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
fix=0
if [ "${1:-}" = "--fix" ]; then fix=1; shift; fi
cf="$(command -v clang-format-14 || true)"
if [ -z "$cf" ] && command -v clang-format >/dev/null &&
   clang-format --version | grep 'version 14\.' >/dev/null; then
    cf="$(command -v clang-format)"
fi
[ -n "$cf" ] || { echo "check-format: clang-format 14 not found (scripts/bootstrap.sh installs it)" >&2; exit 2; }
if [ $# -gt 0 ]; then
    files=("$@")
else
    mapfile -t files < <(cd "$root" && git ls-files '*.c' '*.h' | sed "s|^|$root/|")
fi
bad=0
for f in "${files[@]}"; do
    if [ $fix = 1 ]; then
        "$cf" --style="file:$root/.clang-format" -i "$f"
    elif ! "$cf" --style="file:$root/.clang-format" "$f" | cmp -s - "$f"; then
        echo "not formatted: ${f#$root/} (scripts/check-format.sh --fix)"
        bad=1
    fi
done
exit $bad
