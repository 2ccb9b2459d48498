package fg_test

import (
	"context"
	"fmt"

	fg "github.com/fg-infer/fg"
)

// A coin with a Beta(2, 2) prior through the Go API: the model compiles to
// the typed factor graph, and EP, variational message passing (alpha(0))
// and exact all give the conjugate posterior Beta(9, 5): mean 9/14,
// variance 45/2940, log evidence log B(9, 5) − log B(2, 2).
func ExampleLoad_families() {
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
		mean, _ := r.Mean("p", 0)
		variance, _ := r.Variance("p", 0)
		logZ, _ := r.LogZ()
		fmt.Printf("%-5s %-9s p = %.6f ± %.6f  log Z = %.6f\n", r.Label(), r.Status(), mean, variance, logZ)
	}
	// Output:
	// ep    converged p = 0.642857 ± 0.015306  log Z = -6.977748
	// vmp   converged p = 0.642857 ± 0.015306  log Z = -6.977748
	// exact done      p = 0.642857 ± 0.015306  log Z = -6.977748
}
