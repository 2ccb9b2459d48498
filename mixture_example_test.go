package fg_test

import (
	"context"
	"fmt"

	fg "github.com/fg-infer/fg"
)

// Minka's clutter problem through the Go API: a mixture likelihood with a
// clutter term on no latent; EP's closed-form moments against `infer exact`.
func ExampleLoad_mixture() {
	m, err := fg.Load("examples/clutter.fg")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := m.Run(context.Background(), fg.Only("ep", "exact"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res.All() {
		mean, _ := r.Mean("x", 0)
		variance, _ := r.Variance("x", 0)
		logZ, _ := r.LogZ()
		fmt.Printf("%-5s %-9s x = %.4f ± %.4f  log Z = %.4f\n", r.Label(), r.Status(), mean, variance, logZ)
	}
	// Output:
	// ep    converged x = 2.1396 ± 0.1125  log Z = -53.7006
	// exact done      x = 2.1397 ± 0.1129  log Z = -53.7007
}
