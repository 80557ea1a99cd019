#!/usr/bin/env bash
# The core's decision cost in WebAssembly, in headless Chromium (tests/wasm_bench.rs, release
# build). A benchmark: it prints figures and asserts nothing about time.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ensure_build_tools
ensure_browser_tools
cd "$ROOT"
WASM_BINDGEN_TEST_TIMEOUT=900 CHROMEDRIVER=/usr/bin/chromedriver \
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test --offline --release --target wasm32-unknown-unknown --test wasm_bench -- --nocapture 2>&1 \
  | grep -E "per decision|decisions, one every|requests over|verdict"
