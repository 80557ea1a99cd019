#!/usr/bin/env bash
# Checks the "Use these settings" snippets with each product's own tool, for a few representative
# views (written by tests/snippets.rs): installs what is missing first, from the package registries
# only (Debian: nginx, Go with golang.org/x/time, javac; npm: TypeScript, @upstash/ratelimit,
# Express, express-rate-limit, wrangler; PyPI: limits, PyYAML; crates.io: governor).
#
#   nginx.conf         nginx -t on a minimal nginx.conf whose http block includes it
#   main.rs            cargo check of a small crate using governor (one binary per view)
#   ratelimit.ts       tsc --noEmit --strict against @upstash/ratelimit's and @upstash/redis's types
#   main.go            go vet, with Debian's golang.org/x/time/rate
#   app.js             node --check, then served: limit requests answered 200, the next refused
#   limits_example.py  imported with limits: the item is what limits.parse reads, and the limiter
#                      lets exactly that many hits through
#   wrangler.toml      wrangler deploy --dry-run (the binding row and the Durable Object card),
#                      which validates the configuration offline, with a tiny Worker beside it
#   Example.java       javac against a stub of the two RateLimiter members it calls (Guava's jar
#                      is on Maven Central, not a registry this project installs from)
#   envoy.yaml, cl-throttle.redis, Program.cs: no Envoy, redis-cell or .NET SDK installs from the
#                      registries; scripts/check_snippets.py checks their structure instead.
# Usage: scripts/check-snippets.sh   (well under a minute once installed)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$ROOT"

NPM_DIR="$RATELAB_TOOLS/snippets-npm"
VENV="$RATELAB_TOOLS/snippets-venv"
NPM_PACKAGES=(typescript@7.0.2 @upstash/ratelimit@2.2.0 @upstash/redis@1.39.0 express@5.3.0
  express-rate-limit@8.7.5 wrangler@4.86.0)
PIP_PACKAGES=(limits==5.8.0 PyYAML==6.0.4)
GOVERNOR_VERSION="0.10"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
case "$TARGET_DIR" in /*) ;; *) TARGET_DIR="$ROOT/$TARGET_DIR" ;; esac
WORK="$TARGET_DIR/snippet-check"
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"

ensure_snippet_tools() {
  local missing=()
  [ -x "$NGINX" ] || missing+=(nginx-light)
  command -v go >/dev/null || missing+=(golang-go)
  [ -d /usr/share/gocode/src/golang.org/x/time/rate ] || missing+=(golang-golang-x-time-dev)
  command -v javac >/dev/null || missing+=(default-jdk-headless)
  python3 -c 'import ensurepip' 2>/dev/null || missing+=(python3-venv)
  [ ${#missing[@]} -eq 0 ] || need_root_apt "${missing[@]}"
  NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
  local package name version
  for package in "${NPM_PACKAGES[@]}"; do
    name="${package%@*}"; version="${package##*@}"
    if ! grep -qs "\"version\": \"$version\"" "$NPM_DIR/node_modules/$name/package.json"; then
      say "installing the snippets' npm checkers: ${NPM_PACKAGES[*]}"
      npm install --silent --no-audit --no-fund --prefix "$NPM_DIR" "${NPM_PACKAGES[@]}" >/dev/null
      break
    fi
  done
  if ! "$VENV/bin/python" -c 'import limits, yaml' 2>/dev/null; then
    say "installing the snippets' Python checkers: ${PIP_PACKAGES[*]}"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet "${PIP_PACKAGES[@]}"
  fi
}

ensure_snippet_tools
rm -rf "$WORK"
mkdir -p "$WORK"
# The express snippet is CommonJS, as express-rate-limit's README writes it; the work folder may
# sit inside this repository, whose package.json makes .js files ES modules.
printf '{ "type": "commonjs" }\n' > "$WORK/package.json"
OUT="$WORK/out"
RATELAB_SNIPPETS_DIR="$OUT" cargo test --offline --quiet --test snippets >/dev/null
VIEWS=$(cd "$OUT" && ls)
say "snippets of the views: $(echo $VIEWS)"

say "nginx -t"
for view in $VIEWS; do
  dir="$WORK/nginx/$view"; mkdir -p "$dir"
  printf 'pid %s/nginx.pid;\nerror_log %s/error.log;\nevents {}\nhttp {\n    access_log off;\n    include %s;\n}\n' \
    "$dir" "$dir" "$OUT/$view/nginx/nginx.conf" > "$dir/test.conf"
  "$NGINX" -t -q -p "$dir" -e "$dir/error.log" -c "$dir/test.conf"
done

say "cargo check with governor $GOVERNOR_VERSION"
crate="$WORK/governor"; mkdir -p "$crate/src/bin"
printf '[package]\nname = "snippet-governor"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[dependencies]\ngovernor = "%s"\n\n[workspace]\n' \
  "$GOVERNOR_VERSION" > "$crate/Cargo.toml"
for view in $VIEWS; do cp "$OUT/$view/governor/main.rs" "$crate/src/bin/$view.rs"; done
(cd "$crate" && CARGO_TARGET_DIR="$TARGET_DIR/snippet-governor" cargo check --quiet --bins)

say "tsc --noEmit against @upstash/ratelimit"
ts="$WORK/ts"; mkdir -p "$ts"; ln -s "$NPM_DIR/node_modules" "$ts/node_modules"
for view in $VIEWS; do
  for slug in upstash-fixed upstash-sliding upstash-token; do cp "$OUT/$view/$slug/ratelimit.ts" "$ts/$view-$slug.ts"; done
done
(cd "$ts" && "$NPM_DIR/node_modules/.bin/tsc" --noEmit --strict --target es2022 --module esnext \
  --moduleResolution bundler ./*.ts)

say "go vet with golang.org/x/time/rate"
for view in $VIEWS; do
  (cd "$OUT/$view/x-time-rate" && GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="$WORK/go-cache" \
    GOFLAGS= go vet ./main.go)
done

say "node --check, and each app served with its limiter"
for view in $VIEWS; do
  app="$OUT/$view/express-rate-limit"
  ln -s "$NPM_DIR/node_modules" "$app/node_modules"
  node --check "$app/app.js"
  node scripts/check-snippet-express.cjs "$app/app.js"
done

say "Python: limits"
"$VENV/bin/python" scripts/check_snippets.py limits "$OUT"/*/limits-*/limits_example.py

say "wrangler deploy --dry-run (the binding and the Durable Object)"
for view in $VIEWS; do
  for slug in cf-binding do; do
    dir="$WORK/wrangler/$view-$slug"; mkdir -p "$dir/src"
    cp "$OUT/$view/$slug/wrangler.toml" "$dir/"
    cat > "$dir/src/index.ts" <<'TS'
import { DurableObject } from "cloudflare:workers";
export class RateLimiter extends DurableObject {}
export default { async fetch(): Promise<Response> { return new Response("ok"); } };
TS
    if ! (cd "$dir" && HOME="$dir" WRANGLER_SEND_METRICS=false CI=1 \
        "$NPM_DIR/node_modules/.bin/wrangler" deploy --dry-run --outdir "$dir/dist" >"$dir/log" 2>&1); then
      cat "$dir/log" >&2; exit 1
    fi
  done
done

say "javac against RateLimiter's signatures"
stub="$WORK/java/stub/com/google/common/util/concurrent"; mkdir -p "$stub"
cat > "$stub/RateLimiter.java" <<'JAVA'
package com.google.common.util.concurrent;

/** The members of Guava's RateLimiter the snippet calls, with Guava's signatures. */
public abstract class RateLimiter {
    public static RateLimiter create(double permitsPerSecond) {
        throw new UnsupportedOperationException();
    }

    public boolean tryAcquire() {
        throw new UnsupportedOperationException();
    }
}
JAVA
for view in $VIEWS; do
  javac -Xlint:all -Werror -d "$WORK/java/classes/$view" "$stub/RateLimiter.java" "$OUT/$view/guava/Example.java"
done

say "each snippet run: its product plays the view's trace, each verdict compared with the row's"
# tests/snippets.rs wrote trace.csv and the row's expected.txt beside each run product's snippet.
# A mutant (scripts/snippet-runs/mutants/<view>/<slug>/<file>) is a wrong snippet: its run must
# differ from the row, or the runs prove nothing.
RUNS="$ROOT/scripts/snippet-runs"
MUTANTS="$RUNS/mutants"
RUN="$WORK/runs"; mkdir -p "$RUN/go" "$RUN/java"
# verdicts NAME: the product's verdicts (standard input) beside the trace, to $RUN/NAME.
# same VIEW SLUG NAME: whether they are the row's; prints the differing requests when not.
same() {
  paste -d' ' "$OUT/$1/$2/trace.csv" "$OUT/$1/$2/expected.txt" >"$RUN/$3.want"
  diff -u --label "the $2 row ($1): at_ms,key,cost verdict" --label "the product" "$RUN/$3.want" "$RUN/$3.got"
}
verdicts() { paste -d' ' "$OUT/$1/$2/trace.csv" - >"$RUN/$3.got"; }
# Each runner: run_<product> VIEW SNIPPET_FILE NAME (after prepare_<product> for every file).
RUN_FAILED=0
check_run() { # slug, view, snippet file, name
  run_"$1" "$2" "$3" "$4" | verdicts "$2" "$1" "$4"
  same "$2" "$1" "$4" >&2 || RUN_FAILED=1
}
check_mutant() { # slug, view, snippet file
  run_"$1" "$2" "$3" "mutant-$1-$2" | verdicts "$2" "$1" "mutant-$1-$2"
  if same "$2" "$1" "mutant-$1-$2" >/dev/null; then
    echo "the mutant ${3#"$ROOT/"} decides as the row: the $1 run proves nothing" >&2; RUN_FAILED=1
  fi
}

# Go: one program holding every view's `limiter := ...` line (and the mutants').
{
  printf 'package main\n\nimport "golang.org/x/time/rate"\n\nvar views = map[string]func() *rate.Limiter{\n'
  for file in "$OUT"/*/x-time-rate/main.go "$MUTANTS"/*/x-time-rate/main.go; do
    [ -f "$file" ] || continue
    printf '\t"%s": func() *rate.Limiter {\n\t\t%s\n\t\treturn limiter\n\t},\n' "$file" \
      "$(grep -E '^\s*limiter := rate\.NewLimiter\(' "$file" | sed 's/^\s*//')"
  done
  printf '}\n'
} >"$RUN/go/limiters.go"
cp "$RUNS/xtime.go" "$RUN/go/"
(cd "$RUN/go" && GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="$WORK/go-cache" GOFLAGS= \
  go build -o "$RUN/xtime" xtime.go limiters.go)
run_x-time-rate() { "$RUN/xtime" "$2" "$OUT/$1/x-time-rate/trace.csv"; }

# governor: the harness crate beside the snippets' crate, every view's quota lines in quotas.rs.
cp "$RUNS/governor.rs" "$crate/src/main.rs"
{
  printf 'use std::num::NonZeroU32;\nuse std::time::Duration;\n\nuse governor::Quota;\n\n'
  printf 'pub fn quota(file: &str) -> Quota {\n    match file {\n'
  for file in "$OUT"/*/governor/main.rs "$MUTANTS"/*/governor/main.rs; do
    [ -f "$file" ] || continue
    printf '        "%s" => {\n%s\n            quota\n        }\n' "$file" \
      "$(sed -n '/let burst = /,/\.allow_burst(burst);/p' "$file")"
  done
  printf '        _ => panic!("no snippet {file}"),\n    }\n}\n'
} >"$crate/src/quotas.rs"
(cd "$crate" && CARGO_TARGET_DIR="$TARGET_DIR/snippet-governor" cargo build --quiet --offline --bin snippet-governor)
run_governor() { "$TARGET_DIR/snippet-governor/debug/snippet-governor" "$2" "$OUT/$1/governor/trace.csv"; }

# Guava: Debian's jar, and the harness class in Guava's package.
GUAVA_JAR=/usr/share/java/guava.jar
javac -Xlint:all -Werror -cp "$GUAVA_JAR" -d "$RUN/java" "$RUNS/SnippetRun.java"
run_guava() {
  java -cp "$GUAVA_JAR:$RUN/java" com.google.common.util.concurrent.SnippetRun "$2" "$OUT/$1/guava/trace.csv"
}

run_limits() { "$VENV/bin/python" "$RUNS/limits_run.py" "$2" "$OUT/$1/$slug/trace.csv"; }
run_limits-fixed() { slug=limits-fixed run_limits "$@"; }
run_limits-moving() { slug=limits-moving run_limits "$@"; }
run_limits-sliding() { slug=limits-sliding run_limits "$@"; }
run_express-rate-limit() { node "$RUNS/express_run.cjs" "$2" "$OUT/$1/express-rate-limit/trace.csv"; }

for view in $VIEWS; do
  for slug in x-time-rate governor guava limits-fixed limits-moving limits-sliding express-rate-limit; do
    case $slug in
      x-time-rate) file=main.go ;; governor) file=main.rs ;; guava) file=Example.java ;;
      limits-*) file=limits_example.py ;; express-rate-limit) file=app.js ;;
    esac
    file="$OUT/$view/$slug/$file"
    check_run "$slug" "$view" "$file" "$slug-$view"
  done
done
for file in "$MUTANTS"/*/*/*; do
  slug=$(basename "$(dirname "$file")"); view=$(basename "$(dirname "$(dirname "$file")")")
  check_mutant "$slug" "$view" "$file"
done
[ "$RUN_FAILED" -eq 0 ] || { say "a snippet's product decides differently from its row (above)"; exit 1; }

say "no offline checker (structure only): Envoy, redis-cell, .NET"
"$VENV/bin/python" scripts/check_snippets.py envoy "$OUT"/*/envoy/envoy.yaml
"$VENV/bin/python" scripts/check_snippets.py redis-cell "$OUT"/*/redis-cell/cl-throttle.redis
"$VENV/bin/python" scripts/check_snippets.py dotnet "$OUT"/*/dotnet-*/Program.cs
say "every snippet checked"
