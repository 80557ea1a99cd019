#!/usr/bin/env bash
# Builds the static site and reports browser figures from headless Chromium, served gzip-compressed
# on 127.0.0.1 as static hosts serve it:
#   bash scripts/bench-browser.sh        cold loads on a phone profile (bench-load.mjs), then
#                                        redraws, million-line files and the CSV export
#                                        (bench-browser.mjs)
#   bash scripts/bench-browser.sh load   the cold loads only
#   bash scripts/bench-browser.sh redraw the redraws only (the presets and 200,000 requests as bars)
#   bash scripts/bench-browser.sh ratio  each view's cold load against the network's floor for the
#                                        same files, in turn, as a ratio (bench-ratio.mjs;
#                                        ROUNDS, default 7)
#   bash scripts/bench-browser.sh swap   ticking a product on the first view: the complete module
#                                        brought in place, against a reload into the same view
#                                        (bench-swap.mjs; ROUNDS, default 7)
set -euo pipefail
MODE="${1:-all}"
case "$MODE" in
  all | load | redraw | ratio | swap) ;;
  *) echo "usage: bash scripts/bench-browser.sh [load | redraw | ratio | swap]" >&2; exit 2 ;;
esac
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ensure_build_tools
ensure_browser_tools
cd "$ROOT"
SITE="target/bench-site"
bash scripts/build-site.sh "$SITE/sub/path/ratelab" >/dev/null
if [ "$MODE" = ratio ]; then
  # The floor page must share the site's origin, but never ship with it: it goes into a copy.
  rm -rf target/bench-ratio-site
  cp -r "$SITE" target/bench-ratio-site
  cp scripts/bench-floor.html target/bench-ratio-site/sub/path/ratelab/floor.html
  SITE="target/bench-ratio-site"
fi
serve_folder "$SITE" --gzip
export BASE_URL="$SERVED_AT/sub/path/ratelab/"
case "$MODE" in
  ratio) node scripts/bench-ratio.mjs ;;
  swap) node scripts/bench-swap.mjs ;;
  load) node scripts/bench-load.mjs ;;
  redraw) node scripts/bench-browser.mjs redraw ;;
  all) node scripts/bench-load.mjs && node scripts/bench-browser.mjs all ;;
esac
