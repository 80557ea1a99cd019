#!/usr/bin/env bash
# Serves a built site folder under a sub-path and runs the end-to-end tests against it.
# Usage: scripts/e2e.sh SITE_ROOT [test files...]  (the site must be at SITE_ROOT/sub/path/ratelab)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
SITE="$1"; shift
serve_folder "$SITE"
export BASE_URL="$SERVED_AT/sub/path/ratelab/"
export SITE_DIR="$(cd "$SITE" && pwd)"
export SCREENSHOT_DIR="${SCREENSHOT_DIR:-$ROOT/e2e/artifacts}"
mkdir -p "$SCREENSHOT_DIR"
cd "$ROOT"
if [ $# -eq 0 ]; then set -- e2e/; fi
node --test --test-concurrency=1 "$@"
