package fg_test

import (
	"context"
	"fmt"

	fg "github.com/fg-infer/fg"
)

// Predict through a GP block inside a factor graph: GP classification with
// a latent bias b, y[i] ~ probit(f[i] + b). p(y* = +1) integrates over f*
// and b jointly; the numbers equal the GP with the bias folded into the
// kernel (examples/gp_bias.fg).
func Example_factorGraphPredict() {
	m, err := fg.Load("examples/gp_bias.fg")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := m.Run(context.Background(), fg.Only("ep"))
	if err != nil {
		fmt.Println(err)
		return
	}
	r := res.All()[0]
	for i := 0; i < 4; i++ {
		p, _ := r.Prediction("pg", i)
		fmt.Printf("p(y* = +1 | Xs[%d]) = %.6f\n", i, p)
	}
	// Output:
	// p(y* = +1 | Xs[0]) = 0.801321
	// p(y* = +1 | Xs[1]) = 0.814517
	// p(y* = +1 | Xs[2]) = 0.944229
	// p(y* = +1 | Xs[3]) = 0.588431
}
