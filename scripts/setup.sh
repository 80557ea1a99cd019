#!/usr/bin/env bash
# Installs every tool the build and the tests need, skipping what is already there.
# Sourced by the scripts that build, serve, test and benchmark the site, so that a fresh machine
# needs nothing but this repository. Only package registries are used: crates.io (cargo install),
# npm, PyPI (pip) and Debian's packages (apt-get). Nothing is downloaded from anywhere else.
#
# Where things go:
#   $RATELAB_TOOLS (default ~/.local/share/ratelab-tools) holds trunk, wasm-bindgen and the
#   npm packages binaryen (wasm-opt 132) and terser (trunk's own JS minifier cannot read
#   wasm-bindgen's `export default`). Point it at an empty folder to rehearse a fresh machine.
#   It also holds, in python/, a Python virtual environment with wasmtime's package, with which
#   scripts/bench-core-compare.sh counts WebAssembly operators.
#   playwright-core is a dev dependency in package.json, installed into ./node_modules.
#   chromium and chromium-driver come from Debian (apt-get; needs root, as on CI).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RATELAB_TOOLS="${RATELAB_TOOLS:-$HOME/.local/share/ratelab-tools}"
TRUNK_VERSION="0.21.14"
MDBOOK_VERSION="0.5.4"
WASM_BINDGEN_VERSION="0.2.130"
BINARYEN_VERSION="132.0.0"
TERSER_VERSION="5.51.4"
WASMTIME_PYTHON_VERSION="50.0.1"

say() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }

mkdir -p "$RATELAB_TOOLS/bin"
# wasm-opt must come first on PATH: Debian's binaryen 108 corrupts the module.
export PATH="$RATELAB_TOOLS/npm/node_modules/.bin:$RATELAB_TOOLS/bin:$HOME/.cargo/bin:$PATH"

need_root_apt() {
  if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null; then
    say "please install Debian packages: $* (needs root)"; exit 1
  fi
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  say "installing Debian packages: $*"
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

ensure_wasm_target() {
  if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    say "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
}

ensure_lint_tools() {
  local component
  for component in rustfmt clippy; do
    if ! rustup component list --installed 2>/dev/null | grep -q "^$component"; then
      say "adding the $component component"
      rustup component add "$component"
    fi
  done
}

ensure_cargo_tool() { # binary, crate, version, extra cargo flags...
  local bin="$1" crate="$2" version="$3"; shift 3
  if [ -x "$RATELAB_TOOLS/bin/$bin" ] && "$RATELAB_TOOLS/bin/$bin" --version 2>/dev/null | grep -q "$version"; then
    return
  fi
  say "building $crate $version from crates.io (a few minutes, once)"
  cargo install "$crate" --version "=$version" --root "$RATELAB_TOOLS" "$@"
}

ensure_build_tools() {
  ensure_wasm_target
  # wasm-bindgen's CLI must equal the crate version exactly; its --locked build wants a crate the
  # registry mirror lacks, so it is built unlocked (see shared TOOLCHAIN notes).
  ensure_cargo_tool wasm-bindgen wasm-bindgen-cli "$WASM_BINDGEN_VERSION"
  ensure_cargo_tool trunk trunk "$TRUNK_VERSION" --locked
  if ! wasm-opt --version 2>/dev/null | grep -q "version 132"; then
    say "installing wasm-opt (npm binaryen@$BINARYEN_VERSION)"
    npm install --silent --no-audit --no-fund --prefix "$RATELAB_TOOLS/npm" "binaryen@$BINARYEN_VERSION" >/dev/null
  fi
  if ! terser --version 2>/dev/null | grep -q "$TERSER_VERSION"; then
    say "installing the JavaScript minifier (npm terser@$TERSER_VERSION)"
    npm install --silent --no-audit --no-fund --prefix "$RATELAB_TOOLS/npm" "terser@$TERSER_VERSION" >/dev/null
  fi
  # trunk runs offline, and passes --offline on to cargo: fetch the crates once.
  (cd "$ROOT" && cargo fetch --quiet)
}

# The wasm-opt passes index.html asks trunk for (`data-wasm-opt` and `data-wasm-opt-params`), for
# the builds made without trunk (the first view's module, the named build of bundle-parts.sh).
wasm_opt_flags() {
  local level params
  level=$(sed -n 's/.*data-wasm-opt="\([^"]*\)".*/\1/p' "$ROOT/index.html")
  params=$(sed -n 's/.*data-wasm-opt-params="\([^"]*\)".*/\1/p' "$ROOT/index.html")
  echo "-O$level $params"
}

# Serves folder $1 on 127.0.0.1 with scripts/static_server.py (further arguments are its flags),
# stops it when the calling script exits, and sets SERVED_AT to its address (no trailing slash).
serve_folder() {
  local folder=$1
  shift
  SERVER_PORT_FILE="$(mktemp)"
  python3 "$ROOT/scripts/static_server.py" "$folder" "$SERVER_PORT_FILE" "$@" &
  SERVER_PID=$!
  trap 'kill $SERVER_PID 2>/dev/null || true; rm -f "$SERVER_PORT_FILE"' EXIT
  for _ in $(seq 1 50); do [ -s "$SERVER_PORT_FILE" ] && break; sleep 0.1; done
  SERVED_AT="http://127.0.0.1:$(cat "$SERVER_PORT_FILE")"
}

# Copies revision $1 of this repository (`.` for the working tree as it is, uncommitted changes
# included, but for ignored and deleted files) into folder $2, for a benchmark that compares two
# versions (scripts/bench-compare.sh, scripts/bench-core-compare.sh). The copies of two versions
# share one cargo folder and build the same package, and cargo tells a changed file by its time:
# a revision's files carry its commit's, which may be older than the other copy's build, so every
# file is dated now and each copy is built from its own files.
copy_revision() {
  local revision=$1 tree=$2
  mkdir -p "$tree"
  if [ "$revision" = "." ]; then
    (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard \
      | while IFS= read -r -d '' file; do if [ -f "$file" ]; then printf '%s\0' "$file"; fi; done \
      | tar --null -T - -cf -) | tar -x -C "$tree"
  else
    (cd "$ROOT" && git archive "$(git rev-parse --verify "$revision^{commit}")") | tar -x -C "$tree"
  fi
  find "$tree" -type f -exec touch {} +
}

ensure_browser_tools() {
  local missing=()
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  [ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
  [ ${#missing[@]} -eq 0 ] || need_root_apt "${missing[@]}"
  if [ ! -d "$ROOT/node_modules/playwright-core" ] || [ ! -d "$ROOT/node_modules/axe-core" ]; then
    say "installing playwright-core and axe-core from npm (the browser is Debian's chromium)"
    (cd "$ROOT" && npm ci --silent --no-audit --no-fund >/dev/null)
  fi
}

# wasmtime's Python package, in a virtual environment of its own, for the count of WebAssembly
# operators in scripts/bench-core-compare.sh. Sets WASMTIME_PYTHON to that environment's python.
ensure_wasmtime_python() {
  WASMTIME_PYTHON="$RATELAB_TOOLS/python/bin/python"
  if "$WASMTIME_PYTHON" -c "import sys, importlib.metadata as m
sys.exit(m.version('wasmtime') != '$WASMTIME_PYTHON_VERSION')" 2>/dev/null; then
    return
  fi
  say "installing wasmtime $WASMTIME_PYTHON_VERSION from PyPI into $RATELAB_TOOLS/python"
  python3 -m venv "$RATELAB_TOOLS/python"
  "$WASMTIME_PYTHON" -m pip install --quiet --disable-pip-version-check \
    "wasmtime==$WASMTIME_PYTHON_VERSION"
}

# mdBook, for the end-to-end test that embeds the lab in a real documentation site.
ensure_docs_tools() {
  ensure_cargo_tool mdbook mdbook "$MDBOOK_VERSION" --locked
}
