#!/usr/bin/env bash
# Builds the static site and reports browser figures from headless Chromium, served gzip-compressed
# on 127.0.0.1 as static hosts serve it:
#   bash scripts/bench-browser.sh        cold loads on a phone profile (bench-load.mjs), then
#                                        redraws, million-line files and the CSV export
#                                        (bench-browser.mjs)
#   bash scripts/bench-browser.sh load   the cold loads only
#   bash scripts/bench-browser.sh redraw the redraws only (the presets and 200,000 requests as bars)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ensure_build_tools
ensure_browser_tools
cd "$ROOT"
SITE="target/bench-site"
bash scripts/build-site.sh "$SITE/sub/path/ratelab" >/dev/null
serve_folder "$SITE" --gzip
export BASE_URL="$SERVED_AT/sub/path/ratelab/"
if [ "${1:-all}" != "redraw" ]; then
  node scripts/bench-load.mjs
fi
if [ "${1:-all}" != "load" ]; then
  node scripts/bench-browser.mjs "${1:-all}"
fi
