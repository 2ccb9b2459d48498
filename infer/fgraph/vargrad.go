package fgraph

// varGrads returns ∂ log Z/∂σ²_k for every linear-Gaussian factor
// N(y_k; a_kᵀx + c_k, σ²_k), in the order added, from the converged
// messages of a forest (nil when a factor's incoming message is improper).
//
// log Z is the Bethe energy (logz.go), and at a fixed point of the
// messages it is stationary in them: a message m_{k→v} enters log Z_v once
// and the d_v − 1 other factors' terms through n_{v→j} = b_v/m_{k→v}, and
// the derivatives cancel when the factor and variable beliefs agree on
// v's moments, which BP (exactly) and EP (by moment matching) ensure —
// the argument by which EP's evidence gradient needs no derivative of the
// sites (Seeger 2005; infer/learn). So only the explicit dependence of
// factor k's term on σ²_k counts:
//
//	log Z_k = Σ_j logNorm(n_j) + log N(y; c + Σ a_j m_j, σ² + Σ a_j² v_j),
//	∂ log Z/∂σ²_k = ½ (d²/s² − 1/s),   s = σ²_k + Σ a_j² v_j,   d = y − c − Σ a_j m_j,
//
// with (m_j, v_j) the incoming messages n_j (the cavities): the posterior
// expectation E_q[∂ log N(y_k; a_kᵀx + c_k, σ²_k)/∂σ²_k] written through
// the factor's cavity. A factor with a flat incoming message (a variable
// that only this factor constrains: its integral is 1/|a_j| whatever σ²)
// contributes 0. On a forest this is exact for a linear-Gaussian graph and
// EP's evidence gradient with sites.
func varGrads(g *Graph, st *state) []float64 {
	var out []float64
	for k := 0; k < g.NumFactors(); k++ {
		if !g.gaussian(k) {
			continue
		}
		d, s, ok := gaussianCavity(g, st, k)
		if !ok {
			return nil
		}
		if s == 0 { // a flat incoming message
			out = append(out, 0)
			continue
		}
		out = append(out, 0.5*(d*d/(s*s)-1/s))
	}
	return out
}

// affGrads returns, for every linear-Gaussian factor N(y_k; a_kᵀx + c_k,
// σ²_k) in the order added, ∂ log Z/∂a_kj for each of its coefficients (in
// the order its variables were given) followed by ∂ log Z/∂c_k, from the
// converged messages of a forest (nil when an incoming message is
// improper). As for varGrads only the factor's own term counts, and
// differentiating it with the incoming messages N(m_j, v_j) held is
//
//	∂ log Z/∂c_k  = d/s,
//	∂ log Z/∂a_kj = d m_j/s + a_j v_j (d²/s² − 1/s),
//
// (d, s as in varGrads), which is E_p̃[r x_j]/σ² with r = y − c − aᵀx the
// residual under the factor's pair distribution p̃ (the factor times its
// incoming messages; on a linear-Gaussian forest the exact pairwise
// posterior, whose moments E[x_t x_{t−1}] and E[x_{t−1}²] the AR
// coefficient's gradient Σ_t E[(x_t − a x_{t−1} − c) x_{t−1}]/q needs).
// When exactly one incoming message, of variable j, is flat the factor's
// term is log 1/|a_j| whatever the others are: ∂/∂a_j = −1/a_j, the rest 0.
func affGrads(g *Graph, st *state) []float64 {
	var out []float64
	for k := 0; k < g.NumFactors(); k++ {
		fk := g.fac(k)
		if !fk.gaussian() {
			continue
		}
		lo, hi := fk.lo, fk.hi
		d, s, ok := gaussianCavity(g, st, k)
		if !ok {
			return nil
		}
		if s == 0 { // a flat incoming message
			for e := lo; e < hi; e++ {
				var da float64
				if n := st.cavity(&fk, e, 1); n.Prec == 0 && n.Shift == 0 {
					da = -1 / fk.a(e)
				}
				out = append(out, da)
			}
			out = append(out, 0)
			continue
		}
		r := d / s
		for e := lo; e < hi; e++ {
			n := st.cavity(&fk, e, 1)
			a := fk.a(e)
			out = append(out, r*n.Shift/n.Prec+a/n.Prec*(r*r-1/s))
		}
		out = append(out, r)
	}
	return out
}

// siteCavities returns the cavity mean and variance of every site's
// projection f = aᵀx + c under its incoming messages, in the order added
// (nil when one is not proper). At the fixed point the evidence's
// derivative in a site's likelihood parameter is that of its tilted
// normaliser at this cavity, for the reason varGrads gives.
func siteCavities(g *Graph, st *state) (mean, vr []float64) {
	for k := 0; k < g.NumFactors(); k++ {
		if g.gaussian(k) {
			continue
		}
		m, v, flat, ok := projCavity(g, st, k)
		if flat || !ok {
			return nil, nil
		}
		mean, vr = append(mean, m), append(vr, v)
	}
	return mean, vr
}

// gaussianCavity returns d = y − c − Σ a_j m_j and s = σ² + Σ a_j² v_j of
// linear-Gaussian factor k under its incoming messages, s = 0 when one of
// them is flat, and false when one is improper.
func gaussianCavity(g *Graph, st *state, k int) (d, s float64, ok bool) {
	m, v, flat, ok := projCavity(g, st, k)
	if flat || !ok {
		return 0, 0, ok
	}
	return g.obs(k) - m, g.noise(k) + v, true
}

// projCavity returns the mean c + Σ a_j m_j and variance Σ a_j² v_j of
// factor k's projection aᵀx + c under its incoming messages N(m_j, v_j);
// flat when one of them is flat, false when one is improper.
func projCavity(g *Graph, st *state, k int) (m, v float64, flat, ok bool) {
	fk := g.fac(k)
	lo, hi := fk.lo, fk.hi
	m = fk.c()
	for e := lo; e < hi; e++ {
		n := st.cavity(&fk, e, 1)
		if n.Prec == 0 && n.Shift == 0 {
			return 0, 0, true, true
		}
		if !(n.Prec > 0) {
			return 0, 0, false, false
		}
		a := fk.a(e)
		m += a * n.Shift / n.Prec
		v += a * a / n.Prec
	}
	return m, v, false, true
}
