package graph

// Rewrite sets the numbers of every factor in place: set is called with
// factor k's coefficients (in its variables' order), constant and variance,
// and may change them; its variables, observation, graph factor and tag
// stay. The number columns are built again from the values set, so a
// plate's numbers that still follow a rule (a learned variance shared by
// every step of a chain) stay one rule. Learning sets the values of its
// params this way in the factor graph it compiled once
// (compile.LearnFunc).
func (a *Affines) Rewrite(set func(k int, coefs []float64, c, v *float64)) {
	coefs := make([]Column[float64], len(a.coefs))
	var cs, vs Column[float64]
	buf := make([]float64, len(a.coefs))
	for k := range a.n {
		for j := range a.coefs {
			buf[j] = a.coefs[j].At(k)
		}
		c, v := a.c.At(k), a.v.At(k)
		set(k, buf[:a.Arity(k)], &c, &v)
		for j := range coefs {
			coefs[j].Add(buf[j])
		}
		cs.Add(c)
		vs.Add(v)
	}
	a.coefs, a.c, a.v = coefs, cs, vs
}
