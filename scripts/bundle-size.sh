#!/usr/bin/env bash
# Prints the size of each file of the built site (raw and gzip -9) and fails when the gzip total of
# what the first view loads (its module's .wasm and .js, index.html with its stylesheet, and the
# service worker's scripts) passes the guardrail of 256 KiB (262,144 bytes). What a view showing the
# Durable Object loads (its module in place of the first's: the lab, its chart and its controls) has
# a guardrail of its own, as does the complete module, which only a view with a product row, a rule,
# a question or a kept trace loads (scripts/site_modules.py): each is its size when it last grew by
# a measured choice (the Durable Object's when the core came to compile one way, the complete one's
# when the products' config readers came: docs/performance.md) plus 10 %. An embed loads the module
# its view needs, as any view.
# embed.js, the resize helper that pages embedding the lab load, is listed but not counted.
#
# The guardrails are not targets: what the project budgets is what a person waits for, a cold
# load on a phone (scripts/bench-load.mjs, docs/performance.md). They are there so that a change
# which adds tens of kilobytes at once is noticed; docs/performance.md lists what each part costs.
# Usage: scripts/bundle-size.sh [dist]   (BUNDLE_GATE_BYTES, DURABLE_GATE_BYTES and COMPLETE_GATE_BYTES override them)
set -euo pipefail
DIST="${1:-dist}"
GATE="${BUNDLE_GATE_BYTES:-262144}"
DURABLE_GATE="${DURABLE_GATE_BYTES:-325220}"
COMPLETE_GATE="${COMPLETE_GATE_BYTES:-663618}"
total=0
complete=0
durable=0
printf '%-44s %10s %10s\n' file raw gzip
for f in "$DIST"/*.wasm "$DIST"/*.js "$DIST"/index.html; do
  [ -f "$f" ] || continue
  name=$(basename "$f")
  raw=$(wc -c < "$f")
  gz=$(gzip -9 -c "$f" | wc -c)
  case "$name" in
    embed.js)
      # Loaded by the pages that embed the lab, never by the lab's own page: shown, not counted.
      printf '%-44s %10d %10d  (not counted: for framing pages)\n' "$name" "$raw" "$gz" ;;
    ratelab-durable-*)
      durable=$((durable + gz))
      printf '%-44s %10d %10d  (views with the Durable Object)\n' "$name" "$raw" "$gz" ;;
    ratelab-complete-*)
      complete=$((complete + gz))
      printf '%-44s %10d %10d  (views with product rows)\n' "$name" "$raw" "$gz" ;;
    *)
      total=$((total + gz))
      printf '%-44s %10d %10d\n' "$name" "$raw" "$gz" ;;
  esac
done
printf '%-44s %10s %10d\n' "first view (gzip)" "" "$total"
# The Durable Object's views load its module and its glue in place of the first's.
first_module=0
for f in "$DIST"/ratelab-first-*; do
  first_module=$((first_module + $(gzip -9 -c "$f" | wc -c)))
done
durable_view=$((total - first_module + durable))
printf '%-44s %10s %10d\n' "Durable Object's view (gzip)" "" "$durable_view"
printf '%-44s %10s %10d\n' "complete module, in place of the first's (gzip)" "" "$complete"
status=0
if [ "$total" -gt "$GATE" ]; then
  echo "bundle: the first view's $total bytes gzip are past the guardrail of $GATE bytes" >&2
  status=1
fi
if [ "$durable_view" -gt "$DURABLE_GATE" ]; then
  echo "bundle: the Durable Object's view's $durable_view bytes gzip are past its guardrail of $DURABLE_GATE bytes" >&2
  status=1
fi
if [ "$complete" -gt "$COMPLETE_GATE" ]; then
  echo "bundle: the complete module's $complete bytes gzip are past its guardrail of $COMPLETE_GATE bytes" >&2
  status=1
fi
[ "$status" -eq 0 ] || exit 1
echo "bundle: first view $total bytes gzip, $((GATE - total)) under the guardrail of $GATE bytes;" \
  "the Durable Object's view $durable_view, $((DURABLE_GATE - durable_view)) under its guardrail of $DURABLE_GATE;" \
  "complete module $complete bytes gzip, $((COMPLETE_GATE - complete)) under its guardrail of $COMPLETE_GATE"
