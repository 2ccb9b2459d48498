package exact

import (
	"context"
	"fmt"
	"math"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/netjoint"
	"github.com/fg-infer/fg/internal/mathx"
)

// chainPlan is forward–backward on the discrete chains of a Net whose
// latents are all discrete: every factor depends on at most two discrete
// variables, and the graph whose edges are the two-variable factors is a
// set of paths.
type chainPlan struct {
	paths  [][]int // variables in chain order
	unary  [][]int // per variable: the factors on it alone
	pair   [][]int // per variable: the factors on it and its predecessor
	consts []int   // factors on no variable
	cells  int     // Σ_t K_{t−1} K_t, the pairwise table sizes
}

// planChain recognises chains; ok is false for any other structure.
func planChain(j *netjoint.Joint, disc []int) (*chainPlan, bool) {
	n := j.Net
	c := &chainPlan{unary: make([][]int, len(n.Vars)), pair: make([][]int, len(n.Vars))}
	nb := make([][]int, len(n.Vars))
	two := map[[2]int][]int{}
	for fi := range n.Factors {
		sel := j.Selectors(fi)
		switch len(sel) {
		case 0:
			c.consts = append(c.consts, fi)
		case 1:
			c.unary[sel[0]] = append(c.unary[sel[0]], fi)
		case 2:
			a, b := min(sel[0], sel[1]), max(sel[0], sel[1])
			if two[[2]int{a, b}] == nil {
				nb[a], nb[b] = append(nb[a], b), append(nb[b], a)
			}
			two[[2]int{a, b}] = append(two[[2]int{a, b}], fi)
		default:
			return nil, false
		}
	}
	seen := make([]bool, len(n.Vars))
	for _, v := range disc {
		if len(nb[v]) > 2 {
			return nil, false
		}
	}
	for _, v := range disc {
		if seen[v] || len(nb[v]) == 2 {
			continue
		}
		path := []int{v}
		seen[v] = true
		for prev, cur := -1, v; ; {
			next := -1
			for _, u := range nb[cur] {
				if u != prev {
					next = u
				}
			}
			if next < 0 {
				break
			}
			seen[next] = true
			c.pair[next] = two[[2]int{min(cur, next), max(cur, next)}]
			c.cells += n.Vars[cur].Dim * n.Vars[next].Dim
			path = append(path, next)
			prev, cur = cur, next
		}
		c.paths = append(c.paths, path)
	}
	for _, v := range disc {
		if !seen[v] { // on a cycle
			return nil, false
		}
	}
	return c, true
}

// run is forward–backward in log space on every path:
//
//	α_0(s) = u_0(s),   α_t(s) = u_t(s) + log Σ_r exp(α_{t−1}(r) + ψ_t(r, s)),
//	β_T(s) = 0,        β_t(r) = log Σ_s exp(ψ_{t+1}(r, s) + u_{t+1}(s) + β_{t+1}(s)),
//
// log Z = log Σ_s exp α_T(s) and p(z_t = s) = exp(α_t(s) + β_t(s) − log Z),
// where u_t sums the factors on z_t alone and ψ_t those on (z_{t−1}, z_t).
func (c *chainPlan) run(ctx context.Context, j *netjoint.Joint, res *NetResult) error {
	if bytes := int64(c.cells) * 8 * 2; bytes > infer.MemoryBudget() {
		return fmt.Errorf("exact: forward–backward needs %s for its tables, more than the memory budget of %s",
			infer.FormatBytes(bytes), infer.FormatBytes(infer.MemoryBudget()))
	}
	x := make([]float64, j.Len())
	j.Reference(x)
	res.LogZ = j.LogOf(c.consts, x)
	res.Vars = make([]NetMarginal, len(j.Net.Vars))
	for _, path := range c.paths {
		z, err := c.forwardBackward(ctx, j, path, x, res)
		if err != nil {
			return err
		}
		res.LogZ += z
	}
	if math.IsNaN(res.LogZ) || math.IsInf(res.LogZ, 0) {
		return fmt.Errorf("exact: the log evidence is %v (a configuration of zero probability everywhere?)", res.LogZ)
	}
	return nil
}

// tables evaluates u_t and ψ_t of path[t] (ψ nil at t = 0).
func (c *chainPlan) tables(j *netjoint.Joint, path []int, t int, x []float64) (u, psi []float64) {
	v := path[t]
	k := j.Net.Vars[v].Dim
	u = make([]float64, k)
	for s := range u {
		x[j.Off(v)] = float64(s)
		u[s] = j.LogOf(c.unary[v], x)
	}
	if t == 0 {
		return u, nil
	}
	w := path[t-1]
	kp := j.Net.Vars[w].Dim
	psi = make([]float64, kp*k)
	for r := 0; r < kp; r++ {
		x[j.Off(w)] = float64(r)
		for s := 0; s < k; s++ {
			x[j.Off(v)] = float64(s)
			psi[r*k+s] = j.LogOf(c.pair[v], x)
		}
	}
	return u, psi
}

func (c *chainPlan) forwardBackward(ctx context.Context, j *netjoint.Joint, path []int, x []float64, res *NetResult) (float64, error) {
	T := len(path)
	us, psis := make([][]float64, T), make([][]float64, T)
	alpha := make([][]float64, T)
	var buf []float64
	for t := range path {
		if t%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		us[t], psis[t] = c.tables(j, path, t, x)
		k := len(us[t])
		alpha[t] = make([]float64, k)
		if t == 0 {
			copy(alpha[t], us[t])
			continue
		}
		kp := len(us[t-1])
		for s := 0; s < k; s++ {
			buf = buf[:0]
			for r := 0; r < kp; r++ {
				buf = append(buf, alpha[t-1][r]+psis[t][r*k+s])
			}
			alpha[t][s] = us[t][s] + mathx.LogSumExp(buf)
		}
	}
	logZ := mathx.LogSumExp(alpha[T-1])
	beta := make([]float64, len(us[T-1]))
	for t := T - 1; t >= 0; t-- {
		if t%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		probs := make([]float64, len(beta))
		for s := range probs {
			probs[s] = math.Exp(alpha[t][s] + beta[s] - logZ)
		}
		res.Vars[path[t]].Probs = probs
		res.Updates++
		if t == 0 {
			break
		}
		k, kp := len(us[t]), len(us[t-1])
		prev := make([]float64, kp)
		for r := 0; r < kp; r++ {
			buf = buf[:0]
			for s := 0; s < k; s++ {
				buf = append(buf, psis[t][r*k+s]+us[t][s]+beta[s])
			}
			prev[r] = mathx.LogSumExp(buf)
		}
		beta = prev
	}
	return logZ, nil
}
