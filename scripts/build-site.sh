#!/usr/bin/env bash
# Builds the static site into dist/ (or $1) with relative asset paths, so the folder can be
# hosted as it is under any sub-path (https://example.org/docs/ratelab/ works like /), and a
# Content-Security-Policy that allows nothing but the app's own files (scripts/csp.py).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ensure_build_tools
cd "$ROOT"
DIST="${1:-dist}"
# Where cargo puts its builds: CARGO_TARGET_DIR when set (relative to the repository, as cargo
# reads it from here), so the module taken below is the one just built.
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
trunk build --release --public-url ./ --dist "$DIST"
# The first view's module: the same app without the product profiles (scripts/two_modules.py).
FIRST="$TARGET_DIR/first-view"
cargo build --quiet --offline --release --target wasm32-unknown-unknown --bin ratelab --no-default-features
wasm-bindgen --target web --no-typescript --out-dir "$FIRST" "$TARGET_DIR/wasm32-unknown-unknown/release/ratelab.wasm"
# shellcheck disable=SC2046 # the flags are words
wasm-opt $(wasm_opt_flags) "$FIRST/ratelab_bg.wasm" -o "$FIRST/ratelab_bg.wasm"
# The Durable Object's module: the first one's and the Durable Object lab (for `do=1`).
DURABLE="$TARGET_DIR/durable-view"
cargo build --quiet --offline --release --target wasm32-unknown-unknown --bin ratelab --no-default-features --features durable
wasm-bindgen --target web --no-typescript --out-dir "$DURABLE" "$TARGET_DIR/wasm32-unknown-unknown/release/ratelab.wasm"
wasm-opt $(wasm_opt_flags) "$DURABLE/ratelab_bg.wasm" -o "$DURABLE/ratelab_bg.wasm"
python3 "$ROOT/scripts/two_modules.py" "$DIST" "$FIRST" "$DURABLE"
# Trunk minifies the HTML and CSS (Trunk.toml); the wasm-bindgen glue is minified here.
# The resize helper for pages that embed the lab (web/embed.js); the page itself never loads it.
cp "$ROOT/web/embed.js" "$DIST/embed.js"
python3 "$ROOT/scripts/offline.py" "$DIST"
for js in "$DIST"/*.js; do
  terser "$js" --module --compress passes=2 --mangle --output "$js.min"
  mv "$js.min" "$js"
done
python3 "$ROOT/scripts/sri.py" "$DIST"
python3 "$ROOT/scripts/csp.py" "$DIST"
say "static site written to $DIST/ ($(ls "$DIST" | wc -l) files)"
