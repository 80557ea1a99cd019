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

say "no offline checker (structure only): Envoy, redis-cell, .NET"
"$VENV/bin/python" scripts/check_snippets.py envoy "$OUT"/*/envoy/envoy.yaml
"$VENV/bin/python" scripts/check_snippets.py redis-cell "$OUT"/*/redis-cell/cl-throttle.redis
"$VENV/bin/python" scripts/check_snippets.py dotnet "$OUT"/*/dotnet-*/Program.cs
say "every snippet checked"
