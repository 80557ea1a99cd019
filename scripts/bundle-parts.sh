#!/usr/bin/env bash
# What each part of the page's WebAssembly costs: builds the module as the site does (the same
# release profile and wasm-opt passes as index.html asks trunk for) but keeps the function names,
# then groups twiggy's per-item sizes by the crate each item comes from.
# The table in docs/performance.md is this script's output.
# Usage: bash scripts/bundle-parts.sh   (installs twiggy from crates.io once)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ensure_build_tools
ensure_cargo_tool twiggy twiggy 0.8.0 --locked
cd "$ROOT"
# Where cargo puts its builds: CARGO_TARGET_DIR when set, so the module read is the one just built.
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$TARGET_DIR/bundle-parts"
mkdir -p "$OUT"
# The first view's module (scripts/site_modules.py); COMPLETE=1 for the complete one (every
# feature, as trunk builds it).
FEATURES=(--no-default-features)
[ -z "${COMPLETE:-}" ] || FEATURES=()
cargo build --quiet --offline --release --target wasm32-unknown-unknown --bin ratelab "${FEATURES[@]}"
wasm-bindgen --target web --out-dir "$OUT" "$TARGET_DIR/wasm32-unknown-unknown/release/ratelab.wasm"
# The passes trunk runs (index.html: data-wasm-opt and data-wasm-opt-params), plus -g.
# shellcheck disable=SC2046 # the flags are words
wasm-opt $(wasm_opt_flags) -g "$OUT/ratelab_bg.wasm" -o "$OUT/named.wasm"
twiggy top -n 1000000 --format csv "$OUT/named.wasm" > "$OUT/items.csv"
python3 - "$OUT/items.csv" <<'PY'
import csv, re, sys
from collections import Counter

LEPTOS = {"tachys", "reactive_graph", "leptos", "leptos_dom", "any_spawner", "throw_error",
          "or_poisoned", "hydration_context", "server_fn", "wasm_streams", "futures_util",
          "futures_channel", "futures_executor", "futures_core", "slotmap", "send_wrapper",
          "guardian", "oco_ref", "serde", "serde_json", "indexmap", "hashbrown", "rustc_hash",
          "either_of", "erased", "wasm_bindgen_futures", "async_lock", "event_listener"}
STD = {"core", "alloc", "std", "dlmalloc", "compiler_builtins", "panic_abort"}
BINDGEN = {"wasm_bindgen", "js_sys", "web_sys"}
PLOT = {"plotters", "plotters_backend", "plotters_canvas"}

def part(name: str) -> str | None:
    if name.endswith("subsection") or name.startswith("custom section"):
        return None  # the name section: kept here to read names, absent from the shipped file
    if name.startswith(("import ", "export ")):
        return "imports and exports between the module and its JavaScript glue"
    if name.startswith("data segment"):
        return "data (text, tables, constants)"
    name = re.sub(r"\[[0-9a-f]+\]", "", name)
    trait = name.split(" as ", 1)[1] if name.startswith("<") and " as " in name else name
    roots = re.findall(r"([A-Za-z_][A-Za-z0-9_]*)::", trait)
    if not roots:
        return "Rust standard library, with its generic code made for the page's types" if "::" not in name else "other"
    root = roots[0]
    if root == "ratelab":
        layer = re.search(r"ratelab::(core|layout|ui)", trait)
        return f"ratelab::{layer.group(1)} (this page)" if layer else "ratelab (other)"
    if root in STD:
        if "FnOnce::call_once" in name or "{{closure}}" in name:
            return "closures called through a pointer (core::ops shims)"
        return "Rust standard library, with its generic code made for the page's types"
    if root in LEPTOS or root.startswith("tachys"):
        return "Leptos and its runtime, with its generic code made for the page's views"
    if root in BINDGEN:
        return "wasm-bindgen, js-sys, web-sys"
    if root in PLOT:
        return "plotters, plotters-canvas"
    return f"{root} (other)"

sizes = Counter()
total = 0
with open(sys.argv[1]) as f:
    for row in csv.DictReader(f):
        group = part(row["Name"])
        if group is None:
            continue
        size = int(row["ShallowSize"])
        sizes[group] += size
        total += size
print(f"{'part':<62} {'bytes':>9} {'share':>6}")
for name, size in sizes.most_common():
    if size * 200 < total:
        continue
    print(f"{name:<62} {size:>9,} {100 * size / total:>5.1f}%")
rest = sum(size for size in sizes.values() if size * 200 < total)
print(f"{'everything else (each part under 0.5%)':<62} {rest:>9,} {100 * rest / total:>5.1f}%")
print(f"{'the module, raw (the shipped file also lacks the names)':<62} {total:>9,}")
PY
