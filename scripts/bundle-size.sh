#!/usr/bin/env bash
# Prints the size of each file of the built site (raw and gzip -9) and fails when the gzip total
# of .wasm + .js + .css + index.html passes the guardrail of 256 KiB (262,144 bytes). embed.js,
# the resize helper that pages embedding the lab load, is listed but not counted.
#
# The guardrail is not a target: what the project budgets is what a person waits for, a cold load
# on a phone (scripts/bench-load.mjs, docs/performance.md). It is there so that a change which
# adds tens of kilobytes at once is noticed; docs/performance.md lists what each part costs.
# Usage: scripts/bundle-size.sh [dist]   (BUNDLE_GATE_BYTES overrides the guardrail)
set -euo pipefail
DIST="${1:-dist}"
GATE="${BUNDLE_GATE_BYTES:-262144}"
total=0
printf '%-40s %10s %10s\n' file raw gzip
for f in "$DIST"/*.wasm "$DIST"/*.js "$DIST"/*.css "$DIST"/index.html; do
  [ -f "$f" ] || continue
  if [ "$(basename "$f")" = embed.js ]; then
    # Loaded by the pages that embed the lab, never by the lab's own page: shown, not counted.
    printf '%-40s %10d %10d  (not counted: for framing pages)\n' embed.js "$(wc -c < "$f")" "$(gzip -9 -c "$f" | wc -c)"
    continue
  fi
  raw=$(wc -c < "$f")
  gz=$(gzip -9 -c "$f" | wc -c)
  total=$((total + gz))
  printf '%-40s %10d %10d\n' "$(basename "$f")" "$raw" "$gz"
done
printf '%-40s %10s %10d\n' "total (gzip)" "" "$total"
if [ "$total" -gt "$GATE" ]; then
  echo "bundle: $total bytes gzip is past the guardrail of $GATE bytes" >&2
  exit 1
fi
echo "bundle: $total bytes gzip, $((GATE - total)) bytes under the guardrail of $GATE bytes"
