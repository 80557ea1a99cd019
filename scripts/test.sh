#!/usr/bin/env bash
# Runs every test: formatting and lints, native (unit, integration, property), in-browser
# wasm-bindgen tests, the bundle guardrail, and end-to-end tests of the built site in headless
# Chromium.
# Installs what is missing first (see scripts/setup.sh); a second run starts at once.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ensure_build_tools
ensure_lint_tools
ensure_browser_tools
ensure_docs_tools
cd "$ROOT"

say "0/4 formatting and lints (cargo fmt --check; clippy natively and for wasm32, warnings fail)"
cargo fmt --check
cargo clippy --offline --all-targets -- -D warnings
cargo clippy --offline --all-targets --target wasm32-unknown-unknown -- -D warnings
# The Durable Object's module, and the first view's: the same code without the product profiles
# and the workbench, and without the Durable Object lab either (scripts/site_modules.py).
cargo clippy --offline --all-targets --target wasm32-unknown-unknown --no-default-features --features durable -- -D warnings
cargo clippy --offline --all-targets --target wasm32-unknown-unknown --no-default-features -- -D warnings

say "1/4 native tests (core, properties)"
cargo test --offline

say "1/4 the \"Use these settings\" snippets, checked by each product's own tool and run by the product (scripts/check-snippets.sh)"
bash scripts/check-snippets.sh

say "2/4 wasm-bindgen tests in headless Chromium"
CHROMEDRIVER=/usr/bin/chromedriver \
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test --offline --target wasm32-unknown-unknown --test wasm

say "3/4 release build of the static site, and its size"
SITE="target/e2e-site"
bash scripts/build-site.sh "$SITE/sub/path/ratelab" >/dev/null
bash scripts/bundle-size.sh "$SITE/sub/path/ratelab"

say "4/4 end-to-end tests in headless Chromium (site served under a sub-path)"
bash scripts/e2e.sh "$SITE"
