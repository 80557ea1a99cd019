#!/usr/bin/env bash
# Serves a built site folder under a sub-path and runs the end-to-end tests against it.
# Usage: scripts/e2e.sh SITE_ROOT [test files...]  (the site must be at SITE_ROOT/sub/path/ratelab)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SITE="$1"; shift
PORT_FILE="$(mktemp)"
python3 "$ROOT/scripts/static_server.py" "$SITE" "$PORT_FILE" &
SERVER_PID=$!
trap 'kill $SERVER_PID 2>/dev/null || true; rm -f "$PORT_FILE"' EXIT
for _ in $(seq 1 50); do [ -s "$PORT_FILE" ] && break; sleep 0.1; done
export BASE_URL="http://127.0.0.1:$(cat "$PORT_FILE")/sub/path/ratelab/"
export SITE_DIR="$(cd "$SITE" && pwd)"
export SCREENSHOT_DIR="${SCREENSHOT_DIR:-$ROOT/e2e/artifacts}"
mkdir -p "$SCREENSHOT_DIR"
cd "$ROOT"
if [ $# -eq 0 ]; then set -- e2e/; fi
node --test --test-concurrency=1 "$@"
