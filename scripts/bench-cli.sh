#!/usr/bin/env bash
# The command line on a large access log: time and peak memory of `ratelab table`, `csv` and
# `check` (GNU time's "Maximum resident set size"), and of `csv` in four shards at once.
#
#   bash scripts/bench-cli.sh            # 10,000,000 lines
#   LINES=1000000 bash scripts/bench-cli.sh
#
# The log is generated here (never committed) into $BENCH_DIR (default: a temporary folder):
# 20,000 client addresses over one day, in time order, about 80 bytes a line; a quarter of the
# requests come from 10 busy addresses (about 2.9 a second each), the rest spread over all.
set -euo pipefail
cd "$(dirname "$0")/.."

LINES="${LINES:-10000000}"
DIR="${BENCH_DIR:-$(mktemp -d)}"
LOG="$DIR/access-$LINES.log"
QUERY="${QUERY:-limit=100&window=60}"

cargo build --profile cli --offline
BIN="${CARGO_TARGET_DIR:-target}/cli/ratelab"

if [ ! -s "$LOG" ]; then
  echo "generating $LINES lines into $LOG"
  python3 - "$LINES" "$LOG" <<'PY'
import sys, time
lines, path = int(sys.argv[1]), sys.argv[2]
start = 1791639336  # 10/Oct/2026:13:55:36 +0000
day = 86400
seed = 7
with open(path, "w") as f:
    out = []
    for i in range(lines):
        seed = (seed * 6364136223846793005 + 1) & 0xFFFFFFFFFFFFFFFF
        host = (seed >> 33) % 10 if (seed >> 20) & 3 == 0 else (seed >> 33) % 20000
        t = time.gmtime(start + i * day // lines)
        out.append('10.%d.%d.%d - - [%s +0000] "GET /items/%d HTTP/1.1" 200 512\n' % (
            host >> 16, (host >> 8) & 255, host & 255,
            time.strftime("%d/%b/%Y:%H:%M:%S", t), i % 97))
        if len(out) == 100000:
            f.write("".join(out)); out = []
    f.write("".join(out))
PY
fi
ls -l "$LOG"

measure() {
  local name="$1"; shift
  /usr/bin/time -v "$@" 2>"$DIR/time.txt" >"$DIR/out.txt" || true
  local wall rss
  wall=$(grep "Elapsed (wall clock)" "$DIR/time.txt" | awk '{print $NF}')
  rss=$(grep "Maximum resident set size" "$DIR/time.txt" | awk '{print $NF}')
  printf '%-34s %10s wall %8d MB peak\n' "$name" "$wall" $((rss / 1024))
}

measure "table" "$BIN" table "$QUERY" --traffic "$LOG"
head -8 "$DIR/out.txt"
measure "check --max-refused 5" "$BIN" check "$QUERY" --traffic "$LOG" --max-refused 5
tail -3 "$DIR/out.txt"
/usr/bin/time -v sh -c "\"$BIN\" csv '$QUERY' --traffic '$LOG' | wc -l > '$DIR/rows.txt'" 2>"$DIR/time.txt" || true
printf '%-34s %10s wall %8d MB peak (%s lines)\n' "csv | wc -l" \
  "$(grep 'Elapsed (wall clock)' "$DIR/time.txt" | awk '{print $NF}')" \
  $(( $(grep 'Maximum resident set size' "$DIR/time.txt" | awk '{print $NF}') / 1024 )) "$(cat "$DIR/rows.txt")"
for i in 0 1 2 3; do
  /usr/bin/time -v -o "$DIR/time-$i.txt" "$BIN" csv "$QUERY" --traffic "$LOG" --shard "$i/4" >/dev/null &
done
wait
for i in 0 1 2 3; do
  printf '%-34s %10s wall %8d MB peak\n' "csv --shard $i/4 (four at once)" \
    "$(grep 'Elapsed (wall clock)' "$DIR/time-$i.txt" | awk '{print $NF}')" \
    $(( $(grep 'Maximum resident set size' "$DIR/time-$i.txt" | awk '{print $NF}') / 1024 ))
done
[ -n "${BENCH_DIR:-}" ] || rm -rf "$DIR"
