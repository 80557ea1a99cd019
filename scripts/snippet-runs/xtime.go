// Plays a trace through Go's golang.org/x/time/rate limiters built as a "Use these settings"
// snippet builds them, and prints the verdict of each request (allowed or rejected), for
// scripts/check-snippets.sh to compare with the lab's x-time-rate row.
//
// limiters.go, written by the checker beside this file, holds each view's `limiter := ...` line
// copied from its main.go. One limiter per key, all made before the first request; each request
// is `AllowN(t0 + at, cost)` on an injected time, as the row is.
//
// Debian has x/time 0.3.0; the row follows v0.13. Their AllowN differs only where the views never
// go: a limit of 0 (0.3.0 counts the burst down: the same verdicts), a limit so small or negative
// that 292 years would not fill a new limiter (0.3.0 starts it empty, v0.13 full), and a wait
// over 292 years (0.3.0 overflows it to a negative one, which passes; v0.13 refuses).
// Usage: xtime VIEW TRACE_CSV (lines at_ms,key,cost)
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

func main() {
	build, ok := views[os.Args[1]]
	if !ok {
		panic("no snippet for view " + os.Args[1])
	}
	file, err := os.Open(os.Args[2])
	if err != nil {
		panic(err)
	}
	limiters := map[string]*rate.Limiter{"a": build(), "b": build()}
	t0 := time.Now()
	lines := bufio.NewScanner(file)
	for lines.Scan() {
		f := strings.Split(lines.Text(), ",")
		at, _ := strconv.ParseInt(f[0], 10, 64)
		cost, _ := strconv.Atoi(f[2])
		if limiters[f[1]].AllowN(t0.Add(time.Duration(at)*time.Millisecond), cost) {
			fmt.Println("allowed")
		} else {
			fmt.Println("rejected")
		}
	}
}
