// A mutant, for scripts/check-snippets.sh: the default view's snippet with a burst of 6, not the
// row's 5. Its run must differ from the row's verdicts.
// Rate Limit Lab, Go x/time/rate row (the lab's limit: 5 per 10 s).
package main

import (
	"fmt"

	"golang.org/x/time/rate"
)

func main() {
	// 0.5 events per second, and a burst of 5.
	limiter := rate.NewLimiter(rate.Limit(0.5), 6)
	fmt.Println(limiter.Allow())
}
