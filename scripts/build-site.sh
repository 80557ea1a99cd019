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
# The site's other modules: the same app built with fewer features (scripts/site_modules.py), each
# given wasm-bindgen's glue and the same wasm-opt passes as trunk's.
build_module() {
  local out="$TARGET_DIR/$1"
  shift
  cargo build --quiet --offline --release --target wasm32-unknown-unknown --bin ratelab --no-default-features "$@"
  wasm-bindgen --target web --no-typescript --out-dir "$out" "$TARGET_DIR/wasm32-unknown-unknown/release/ratelab.wasm"
  # shellcheck disable=SC2046 # the flags are words
  wasm-opt $(wasm_opt_flags) "$out/ratelab_bg.wasm" -o "$out/ratelab_bg.wasm"
}
# The first view's module: without the product profiles, the workbench and the Durable Object lab.
build_module first-view
# The Durable Object's module: the first one's and the Durable Object lab (for `do=1`).
build_module durable-view --features durable
# The loader's names, from the rule in Rust (src/site.rs), built natively.
cargo run --quiet --offline --example loader_tables > "$TARGET_DIR/loader-tables.js"
python3 "$ROOT/scripts/site_modules.py" "$DIST" "$TARGET_DIR/first-view" "$TARGET_DIR/durable-view" "$TARGET_DIR/loader-tables.js"
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
