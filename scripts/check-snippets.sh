#!/usr/bin/env bash
# Checks the "Use these settings" snippets with each product's own tool, for a few representative
# views (written by tests/snippets.rs): installs what is missing first, from the package registries
# only (Debian: nginx, Go with golang.org/x/time, javac and Guava's jar; npm: TypeScript,
# @upstash/ratelimit, Express, express-rate-limit, wrangler; PyPI: limits, PyYAML; crates.io:
# governor).
#
# First each tool's own check:
#   nginx.conf         nginx -t on a minimal nginx.conf whose http block includes it
#   main.rs            cargo build of a small crate using governor (one binary per view)
#   ratelimit.ts       tsc --noEmit --strict against @upstash/ratelimit's and @upstash/redis's types
#   main.go            go vet, with Debian's golang.org/x/time/rate
#   app.js             node --check, then served: limit requests answered 200, the next refused
#   limits_example.py  imported with limits: the item is what limits.parse reads, and the limiter
#                      lets exactly that many hits through
#   wrangler.toml      wrangler deploy --dry-run (the binding row and the Durable Object card),
#                      which validates the configuration offline, with a tiny Worker beside it
#   Example.java       javac against Debian's Guava jar
#   envoy.yaml, cl-throttle.redis, Program.cs: no Envoy, redis-cell or .NET SDK installs from the
#                      registries; scripts/check_snippets.py checks their structure instead.
# Then the runs: the product itself, set up by the snippet, plays a fixed trace of the view (two
# keys, a burst, costs above 1 where the product has costs) and each of its verdicts must be the
# row's (scripts/snippet-runs/, one file a product, each saying how it runs): on an injected clock
# for x/time/rate, governor, Guava, the three limits strategies and express-rate-limit (every
# view); in real time for nginx (three views) and the Cloudflare binding under wrangler's local
# runtime (two views), whose traces keep 100 ms from any change of verdict. The committed mutants
# (scripts/snippet-runs/mutants/) are wrong snippets, which must decide differently.
# Usage: scripts/check-snippets.sh   (about a minute and a half once installed; the real-time
# runs take their traces' length, up to half a minute, beside the others)
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
  [ -f /usr/share/java/guava.jar ] || missing+=(libguava-java)
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

say "cargo build with governor $GOVERNOR_VERSION (built, not only checked: the runs below use the same build)"
crate="$WORK/governor"; mkdir -p "$crate/src/bin"
printf '[package]\nname = "snippet-governor"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[dependencies]\ngovernor = "%s"\n\n[workspace]\n' \
  "$GOVERNOR_VERSION" > "$crate/Cargo.toml"
for view in $VIEWS; do cp "$OUT/$view/governor/main.rs" "$crate/src/bin/$view.rs"; done
(cd "$crate" && CARGO_TARGET_DIR="$TARGET_DIR/snippet-governor" cargo build --quiet --bins)

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

say "javac against Debian's Guava jar"
GUAVA_JAR=/usr/share/java/guava.jar
for view in $VIEWS; do
  javac -Xlint:all -Werror -cp "$GUAVA_JAR" -d "$WORK/java/classes/$view" "$OUT/$view/guava/Example.java"
done

say "each snippet run: its product plays the view's trace, each verdict compared with the row's"
# tests/snippets.rs wrote trace.csv and the row's expected.txt beside each run product's snippet.
# run_<slug> VIEW FILE prints the product's verdict of each request of the view's trace, with the
# snippet FILE (the view's own, or a mutant's). A mutant (scripts/snippet-runs/mutants/<view>/
# <slug>/<file>) is a wrong snippet: its run must differ from the row, or the run proves nothing.
RUNS="$ROOT/scripts/snippet-runs"
RUN="$WORK/runs"; mkdir -p "$RUN/go" "$RUN/java"
snippet_file() { # slug: the file name of its snippet
  case $1 in
    x-time-rate) echo main.go ;; governor) echo main.rs ;; guava) echo Example.java ;;
    limits-*) echo limits_example.py ;; express-rate-limit) echo app.js ;;
    nginx) echo nginx.conf ;; cf-binding) echo wrangler.toml ;;
  esac
}
MUTANT_FILES=$(cd "$RUNS/mutants" && ls -d */*/*)
# Real time: nginx and the Cloudflare binding (started first, in the background, as they take
# their trace's own length).
run_nginx() { python3 "$RUNS/nginx_run.py" "$NGINX" "$2" "$OUT/$1/nginx/trace.csv" "$RUN/nginx-$3"; }
run_cf-binding() { # wrangler's local runtime wants the Worker that wrangler.toml names
  mkdir -p "$RUN/cf-$3/src"; cp "$2" "$RUN/cf-$3/wrangler.toml"
  printf 'export default { async fetch(): Promise<Response> { return new Response("ok"); } };\n' \
    >"$RUN/cf-$3/src/index.ts"
  (cd "$RUN/cf-$3" && HOME="$RUN/cf-$3" WRANGLER_SEND_METRICS=false CI=1 node "$RUNS/cf_run.mjs" \
    "$NPM_DIR/node_modules/wrangler/wrangler-dist/cli.js" wrangler.toml "$OUT/$1/cf-binding/trace.csv")
}
# Injected clocks: Go, governor, Guava, limits, express-rate-limit.
{
  printf 'package main\n\nimport "golang.org/x/time/rate"\n\nvar views = map[string]func() *rate.Limiter{\n'
  for file in "$OUT"/*/x-time-rate/main.go "$RUNS"/mutants/*/x-time-rate/main.go; do
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

cp "$RUNS/governor.rs" "$crate/src/main.rs" # beside the snippets' crate; their quotas in quotas.rs
{
  printf 'use std::num::NonZeroU32;\nuse std::time::Duration;\n\nuse governor::Quota;\n\n'
  printf 'pub fn quota(file: &str) -> Quota {\n    match file {\n'
  for file in "$OUT"/*/governor/main.rs "$RUNS"/mutants/*/governor/main.rs; do
    [ -f "$file" ] || continue
    printf '        "%s" => {\n%s\n            quota\n        }\n' "$file" \
      "$(sed -n '/let burst = /,/\.allow_burst(burst);/p' "$file")"
  done
  printf '        _ => panic!("no snippet {file}"),\n    }\n}\n'
} >"$crate/src/quotas.rs"
(cd "$crate" && CARGO_TARGET_DIR="$TARGET_DIR/snippet-governor" cargo build --quiet --offline --bin snippet-governor) # the crates fetched above
run_governor() { "$TARGET_DIR/snippet-governor/debug/snippet-governor" "$2" "$OUT/$1/governor/trace.csv"; }

javac -Xlint:all -Werror -cp "$GUAVA_JAR" -d "$RUN/java" "$RUNS/SnippetRun.java"
run_guava() {
  java -cp "$GUAVA_JAR:$RUN/java" com.google.common.util.concurrent.SnippetRun "$2" "$OUT/$1/guava/trace.csv"
}
run_limits() { "$VENV/bin/python" "$RUNS/limits_run.py" "$2" "$OUT/$1/$slug/trace.csv"; }
run_limits-fixed() { slug=limits-fixed run_limits "$@"; }
run_limits-moving() { slug=limits-moving run_limits "$@"; }
run_limits-sliding() { slug=limits-sliding run_limits "$@"; }
run_express-rate-limit() { node "$RUNS/express_run.cjs" "$2" "$OUT/$1/express-rate-limit/trace.csv"; }

# play SLUG VIEW FILE NAME: the run's verdicts beside the trace, in $RUN/NAME.got.
play() { run_"$1" "$2" "$3" "$4" | paste -d' ' "$OUT/$2/$1/trace.csv" - >"$RUN/$4.got"; }
# same SLUG VIEW NAME: whether they are the row's (printing the requests that differ when not).
same() {
  paste -d' ' "$OUT/$2/$1/trace.csv" "$OUT/$2/$1/expected.txt" >"$RUN/$3.want"
  diff -u --label "the $1 row ($2): at_ms,key,cost verdict" --label "$1 itself" "$RUN/$3.want" "$RUN/$3.got"
}
PLAYS=() # slug view file name
for view in per-second default fifteen; do PLAYS+=("nginx $view $OUT/$view/nginx/nginx.conf nginx-$view"); done
for view in default fraction; do PLAYS+=("cf-binding $view $OUT/$view/cf-binding/wrangler.toml cf-binding-$view"); done
for mutant in $MUTANT_FILES; do
  IFS=/ read -r view slug _ <<<"$mutant"
  PLAYS+=("$slug $view $RUNS/mutants/$mutant mutant-$slug-$view")
done
for view in $VIEWS; do
  for slug in x-time-rate governor guava limits-fixed limits-moving limits-sliding express-rate-limit; do
    PLAYS+=("$slug $view $OUT/$view/$slug/$(snippet_file "$slug") $slug-$view")
  done
done
PIDS=()
for play in "${PLAYS[@]}"; do
  read -r slug view file name <<<"$play"
  case $slug in nginx | cf-binding) play "$slug" "$view" "$file" "$name" & PIDS+=($!) ;; esac
done
for play in "${PLAYS[@]}"; do
  read -r slug view file name <<<"$play"
  case $slug in nginx | cf-binding) ;; *) play "$slug" "$view" "$file" "$name" ;; esac
done
for pid in "${PIDS[@]}"; do wait "$pid"; done
WRONG=0
for play in "${PLAYS[@]}"; do
  read -r slug view file name <<<"$play"
  if [[ $name == mutant-* ]]; then
    if same "$slug" "$view" "$name" >/dev/null; then
      echo "the mutant ${file#"$ROOT/"} decides as the row: the $slug run proves nothing" >&2; WRONG=1
    fi
  else
    same "$slug" "$view" "$name" >&2 || WRONG=1
  fi
done
[ "$WRONG" -eq 0 ] || { say "a snippet's product decides differently from its row (above)"; exit 1; }
say "runs: ${#PLAYS[@]} (the mutants rejected: $(echo $MUTANT_FILES))"

say "no offline checker (structure only): Envoy, redis-cell, .NET"
"$VENV/bin/python" scripts/check_snippets.py envoy "$OUT"/*/envoy/envoy.yaml
"$VENV/bin/python" scripts/check_snippets.py redis-cell "$OUT"/*/redis-cell/cl-throttle.redis
"$VENV/bin/python" scripts/check_snippets.py dotnet "$OUT"/*/dotnet-*/Program.cs
say "every snippet checked"
