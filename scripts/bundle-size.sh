#!/usr/bin/env bash
# Prints the size of the built site (raw and gzip -9) and fails if the gzip total of
# .wasm + .js + .css + index.html is over the budget (200 KB unless BUNDLE_BUDGET_BYTES is set).
# Usage: scripts/bundle-size.sh [dist]
set -euo pipefail
DIST="${1:-dist}"
BUDGET="${BUNDLE_BUDGET_BYTES:-204800}"
total=0
printf '%-40s %10s %10s\n' file raw gzip
for f in "$DIST"/*.wasm "$DIST"/*.js "$DIST"/*.css "$DIST"/index.html; do
  [ -f "$f" ] || continue
  raw=$(wc -c < "$f")
  gz=$(gzip -9 -c "$f" | wc -c)
  total=$((total + gz))
  printf '%-40s %10d %10d\n' "$(basename "$f")" "$raw" "$gz"
done
printf '%-40s %10s %10d\n' "total (gzip)" "" "$total"
if [ "$total" -gt "$BUDGET" ]; then
  echo "bundle: $total bytes gzip is over the budget of $BUDGET bytes" >&2
  exit 1
fi
echo "bundle: $total bytes gzip, within the budget of $BUDGET bytes"
