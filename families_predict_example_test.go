package fg_test

import (
	"context"
	"fmt"

	fg "github.com/fg-infer/fg"
)

// The coin's posterior predictive through the Go API: the probability that
// an 11th flip lands heads, E[p] = 9/14 under the Beta(9, 5) posterior,
// and the expected number of heads in 20 more flips, 20 · 9/14 — from
// the predict statements of examples/families/coin.fg.
func ExampleResult_Prediction_families() {
	m, err := fg.Load("examples/families/coin.fg")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := m.Run(context.Background(), fg.Only("ep", "vmp", "exact"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res.All() {
		heads, _ := r.Prediction("heads", 0)
		more, _ := r.Prediction("more", 0)
		fmt.Printf("%-5s p(heads) = %.6f  E[heads in 20] = %.6f\n", r.Label(), heads, more)
	}
	// Output:
	// ep    p(heads) = 0.642857  E[heads in 20] = 12.857143
	// vmp   p(heads) = 0.642857  E[heads in 20] = 12.857143
	// exact p(heads) = 0.642857  E[heads in 20] = 12.857143
}
