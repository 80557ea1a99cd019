#!/usr/bin/env bash
# Compares the core's decision costs of two versions of the code, run in turn on this machine:
# the way to tell a change from the machine's own ups and downs, which here move a figure by 10
# to 30 % from run to run and more from day to day (docs/performance.md).
#   bash scripts/bench-core-compare.sh REV_A [REV_B]
# REV_A and REV_B are git revisions (REV_B defaults to HEAD); `.` is the working tree as it is,
# uncommitted changes included. Each is copied to target/compare/core/src/ and its own benchmarks
# are built there. PARTS (default all three) says which run:
#   instructions  the instructions one decision takes, counted on benches/one_key.rs, built in
#                 each copy from this checkout's file: natively by valgrind (cachegrind), and in
#                 WebAssembly as operators by wasmtime's fuel. Both are the same for every run,
#                 so one run of each version is enough;
#   native        the times of `cargo bench --bench simulate`;
#   wasm          the times of tests/wasm_bench.rs in headless Chromium (scripts/bench-wasm.sh).
# Times run ROUNDS (default 2) times per version, in turn, A first in odd rounds and B first in
# even ones; each row prints both versions' medians over the rounds with their ranges, and B's
# median over A's (scripts/bench_core_compare.py). A benchmark: it prints figures and asserts
# nothing about time.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
PARTS="${PARTS:-instructions native wasm}"
has_part() { [[ " $PARTS " == *" $1 "* ]]; }
ensure_wasm_target
PYTHON=python3
if has_part instructions; then
  command -v valgrind >/dev/null || need_root_apt valgrind
  ensure_wasmtime_python
  PYTHON="$WASMTIME_PYTHON"
fi
if has_part wasm; then
  ensure_cargo_tool wasm-bindgen wasm-bindgen-cli "$WASM_BINDGEN_VERSION"
  ensure_browser_tools
fi
cd "$ROOT"
if [ $# -lt 1 ]; then
  echo "usage: bash scripts/bench-core-compare.sh REV_A [REV_B]   (a revision, or . for the working tree)" >&2
  exit 2
fi
WORK="$ROOT/target/compare/core"
rm -rf "$WORK/src" "$WORK/bin"
mkdir -p "$WORK/src" "$WORK/bin"

# The path of the one executable of kind $1 (bench, test, example) that cargo's JSON messages on
# standard input name (a build also names the command-line tool's).
executable() {
  python3 -c '
import json, sys
messages = [json.loads(line) for line in sys.stdin]
paths = [m["executable"] for m in messages
         if m.get("executable") and m["target"]["kind"] == [sys.argv[1]]]
if len(paths) != 1:
    sys.exit("expected one %s executable, cargo built %d" % (sys.argv[1], len(paths)))
print(paths[0])' "$1"
}

# Builds revision $2's benchmarks from a copy of its files, and keeps them as $WORK/bin/$1-*:
# the two copies share one cargo folder, where the second build would replace the first's.
build() {
  local name=$1 revision=$2 tree="$WORK/src/$1"
  copy_revision "$revision" "$tree"
  say "building $name's benchmarks from $revision"
  cd "$tree"
  # Its own lock file's crates, for each target (offline builds from then on).
  cargo fetch --quiet
  if has_part instructions; then
    mkdir -p examples
    cp "$ROOT/benches/one_key.rs" examples/one_key.rs
    cp "$(CARGO_TARGET_DIR="$WORK/cargo" cargo build --offline --quiet --release \
      --example one_key --message-format=json | executable example)" "$WORK/bin/$name-one-key"
    # The same program as a WebAssembly module that exports its decisions. Its wasm-bindgen
    # imports stay unresolved: bench_core_compare.py gives them stand-ins the decisions never call.
    cp "$(CARGO_TARGET_DIR="$WORK/cargo" cargo rustc --offline --quiet --release \
      --target wasm32-unknown-unknown --example one_key --message-format=json \
      -- -C link-arg=--export=decide_one_key | executable example)" "$WORK/bin/$name-one-key.wasm"
  fi
  if has_part native; then
    cp "$(CARGO_TARGET_DIR="$WORK/cargo" cargo bench --offline --quiet \
      --bench simulate --no-run --message-format=json | executable bench)" "$WORK/bin/$name-native"
  fi
  if has_part wasm; then
    cp "$(CARGO_TARGET_DIR="$WORK/cargo" cargo test --offline --quiet --release \
      --target wasm32-unknown-unknown --test wasm_bench --no-run --message-format=json \
      | executable test)" "$WORK/bin/$name-wasm.wasm"
  fi
  cd "$ROOT"
}
build A "$1"
build B "${2:-HEAD}"

export WASM_BINDGEN_TEST_TIMEOUT=900 CHROMEDRIVER=/usr/bin/chromedriver
# shellcheck disable=SC2086 # one argument per part
"$PYTHON" scripts/bench_core_compare.py --rounds "${ROUNDS:-2}" --parts $PARTS \
  --label-a "$1" --label-b "${2:-HEAD}" "$WORK/bin"
