#!/usr/bin/env bash
# Runs every test: native (unit, integration, property), in-browser wasm-bindgen tests, the
# bundle budget, and end-to-end tests of the built site in headless Chromium.
# Installs what is missing first (see scripts/setup.sh); a second run starts at once.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ensure_build_tools
ensure_browser_tools
cd "$ROOT"

say "1/4 native tests (core, properties)"
cargo test --offline

say "2/4 wasm-bindgen tests in headless Chromium"
CHROMEDRIVER=/usr/bin/chromedriver \
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test --offline --target wasm32-unknown-unknown --test wasm

say "3/4 release build of the static site, and its size"
SITE="target/e2e-site"
bash scripts/build-site.sh "$SITE/sub/path/ratelab" >/dev/null
bash scripts/bundle-size.sh "$SITE/sub/path/ratelab"

say "4/4 end-to-end tests in headless Chromium (site served under a sub-path)"
PORT_FILE="$(mktemp)"
python3 "$ROOT/scripts/static_server.py" "$SITE" "$PORT_FILE" &
SERVER_PID=$!
trap 'kill $SERVER_PID 2>/dev/null || true; rm -f "$PORT_FILE"' EXIT
for _ in $(seq 1 50); do [ -s "$PORT_FILE" ] && break; sleep 0.1; done
export BASE_URL="http://127.0.0.1:$(cat "$PORT_FILE")/sub/path/ratelab/"
export SCREENSHOT_DIR="$ROOT/e2e/artifacts"
mkdir -p "$SCREENSHOT_DIR"
node --test --test-concurrency=1 e2e/
