#!/usr/bin/env bash
# Compares the cold loads of two versions of the site, loaded in turn on the phone profile
# (scripts/bench-compare.mjs): the way to tell a change from the machine's own ups and downs.
#   bash scripts/bench-compare.sh REV_A [REV_B]
# REV_A and REV_B are git revisions (REV_B defaults to HEAD); `.` is the working tree as it is,
# uncommitted changes included. Each is copied to target/compare/src/ and built there by its own
# scripts/build-site.sh (the two share one cargo target folder), and both are served
# gzip-compressed on 127.0.0.1. ROUNDS (default 10) loads of each version per view; NETWORK=0
# slows only the CPU, to compare the page's own part (bench-compare.mjs).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ensure_build_tools
ensure_browser_tools
cd "$ROOT"
if [ $# -lt 1 ]; then
  echo "usage: bash scripts/bench-compare.sh REV_A [REV_B]   (a revision, or . for the working tree)" >&2
  exit 2
fi
WORK="$ROOT/target/compare"
rm -rf "$WORK/sites" "$WORK/src"
mkdir -p "$WORK/sites" "$WORK/src"

# Builds revision $2 into the site $1 with that revision's own build script, from a copy of
# its files under target/compare/src/.
build() {
  local name=$1 revision=$2 tree="$WORK/src/$1"
  copy_revision "$revision" "$tree"
  say "building $name from $revision"
  CARGO_TARGET_DIR="$WORK/cargo" bash "$tree/scripts/build-site.sh" "$WORK/sites/$name" >/dev/null
}
build A "$1"
build B "${2:-HEAD}"

serve_folder "$WORK/sites" --gzip
A_URL="$SERVED_AT/A/" B_URL="$SERVED_AT/B/" node scripts/bench-compare.mjs
