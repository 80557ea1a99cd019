#!/usr/bin/env bash
# Builds the app and serves it on http://127.0.0.1:${PORT:-8080}/ with live reload.
# Installs what is missing first (see scripts/setup.sh).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ensure_build_tools
cd "$ROOT"
PORT="${PORT:-8080}"
say "building, then serving Rate Limit Lab at http://127.0.0.1:$PORT/ (Ctrl-C stops)"
# A separate dist folder: trunk serve injects its reload script, which must not reach dist/.
exec trunk serve --address 127.0.0.1 --port "$PORT" --dist target/serve-dist
