package families

// The EP site update, written once for every EP engine of fg.
//
// An EP site t̃(x) ∝ exp(−½ τ̃ x² + ν̃ x) approximates a factor f of a
// Gaussian variable (or of a projection f = aᵀx + c of several). One
// update (Minka 2001, §3.2; Minka 2004, "Power EP", MSR-TR-2004-149, for
// the power u, written out for GP classification in qi-guo-relaxed-ep-long
// Appendix C; Rasmussen & Williams 2006, §3.6, and
// rodrigues-gpc-message-passing eqs 9–22 for u = 1):
//
//  1. cavity      q\ = q / t̃^u                      (natural parameters: subtract)
//  2. tilted      p̂ ∝ f^u q\, through the derivatives d1, d2 in m of
//     log Z(m, v) = log ∫ f(x)^u N(x; m, v) dx at the cavity N(m, v), so that
//     E_p̂ x = m + v d1 and Var_p̂ x = v + v² d2   (Likelihood.Tilted)
//  3. project     q̂ = the Gaussian with those moments (KL projection)
//  4. power       t̃_new = (q̂ / q\)^{1/u}               (TiltedSite)
//  5. clamp       τ̃ ← max(τ̃, 0), optional             (GPML infEP's convention)
//  6. damp        t̃ ← (1 − δ)·t̃_old + δ·t̃_new in natural parameters (Damped)
//
// Steps 3–4 in closed form:
//
//	τ̃ = −d2 / (u (1 + v d2)),   ν̃ = (d1 − m d2) / (u (1 + v d2)),
//
// defined when the tilted variance v (1 + v d2) is positive. A site on a
// projection f = aᵀx + c with factorised cavities N(x_k; m_k, v_k)
// (Minka 2001 §3.2; infer/fgraph, infer/stream, infer/ffep) has the cavity
// N(f; c + Σ a_k m_k, Σ a_k² v_k) (Projection) and, since ∂/∂m_k =
// a_k ∂/∂m_f, the member derivatives d1_k = a_k d1, d2_k = a_k² d2
// (MemberDerivs), which step 4 turns into each member's message. A factor
// Gaussian in f is its own site in f (GaussianSiter); its members' sites
// are then exact, each from the cavity of the other members (LeaveOneOut,
// MemberSite), at any noise.
//
// Damping is the convex combination of old and new natural parameters
// (the damped EP of Minka 2004, as qi-guo-relaxed-ep-long §5 cites it;
// Heskes & Zoeter 2002, "Expectation propagation for approximate inference
// in dynamic Bayesian networks", damp the canonical parameters): δ = 1 is
// the undamped update, and a step between two proper sites is proper. Damped is the one scalar rule;
// Gaussian.Damp (scalar messages), Damp (natural-parameter slices: diagonal
// sites, discrete log-messages, the general families of infer/mp) and
// GaussianDense.Damp (infer/shard's dense sites) call it.
//
// The t-exponential EP of infer/tep shares this shape (cavity by q-division
// = subtraction, tilted, projection, damping by Damped) but its projection is
// escort moment matching onto the Student-t family, not TiltedSite.

// Damped is the damped step from old to new with step δ ∈ (0, 1]:
// (1 − δ)·old + δ·new; exactly new when δ = 1.
func Damped(old, new, delta float64) float64 {
	if delta == 1 {
		return new
	}
	return (1-delta)*old + delta*new
}

// Damp returns the damped step from g to new in natural parameters (both
// τ̃ and ν̃ by Damped).
func (g Gaussian) Damp(new Gaussian, delta float64) Gaussian {
	return Gaussian{Shift: Damped(g.Shift, new.Shift, delta), Prec: Damped(g.Prec, new.Prec, delta)}
}

// TiltedSite returns the site message (q̂ / cav)^{1/u} of a cavity
// cav = N(m, v) (proper: Prec > 0) whose tilted distribution, under the
// factor to the power u, has mean m + v d1 and variance v + v² d2 (see the
// top of this file):
//
//	τ̃ = −d2 / (u (1 + v d2)),   ν̃ = (d1 − m d2) / (u (1 + v d2)).
//
// ok is false (the update must be skipped, and site is meaningless) when
// 1 + v d2 ≤ 0 (the tilted variance is not positive) or an input or the
// result is not finite.
func TiltedSite(cav Gaussian, d1, d2, u float64) (site Gaussian, ok bool) {
	m, v := cav.Shift/cav.Prec, 1/cav.Prec
	den := 1 + v*d2
	site = Gaussian{Shift: (d1 - m*d2) / (u * den), Prec: -d2 / (u * den)}
	// A non-finite d1 or d2 makes den ≤ 0, NaN, or the site non-finite.
	return site, den > 0 && isFinite(site.Prec) && isFinite(site.Shift)
}

// Tilter is a site factor's tilted rule (package factor's Tilted): with
// observation y, the log normaliser log Z(m, v) = log ∫ f(x)^u N(x; m, v) dx
// of its tilted distribution at a cavity N(m, v) and its first two
// derivatives in m.
type Tilter interface {
	Tilted(y, m, v, u float64) (logZ, d1, d2 float64)
}

// GaussianSiter is implemented by site factors that are Gaussian in their
// argument, f(x) = N(y; x, r) (a conjugate Gaussian likelihood):
// GaussianSite(y) is the factor itself as a site, τ̃ = 1/r, ν̃ = y/r, which
// is its EP site for every cavity and power u (the tilted distribution is
// the cavity times f^u, so (q̂/cav)^{1/u} = f). The derivative route reaches
// the same site through d2 = −1/(v + r/u) and 1 + v d2 = (r/u)/(v + r/u),
// which keep only the digits of r that survive the sum v + r/u: at
// r = 1e-12 and v = 1, τ̃ comes out ~5e-6 relative off.
type GaussianSiter interface {
	GaussianSite(y float64) Gaussian
}

// FactorSite is the site (q̂ / cav)^{1/u} of factor f with observation y at
// the proper cavity cav: f's own site when f is a GaussianSiter (exact),
// else TiltedSite from its tilted derivatives. ok is as for TiltedSite.
func FactorSite(f Tilter, y float64, cav Gaussian, u float64) (site Gaussian, ok bool) {
	if g, exact := f.(GaussianSiter); exact {
		site = g.GaussianSite(y)
		return site, isFinite(site.Prec) && isFinite(site.Shift)
	}
	_, d1, d2 := f.Tilted(y, cav.Shift/cav.Prec, 1/cav.Prec, u)
	return TiltedSite(cav, d1, d2, u)
}

// isFinite is finite for the hot path: x − x is 0 exactly when x is
// finite (NaN for ±Inf and NaN), and the test stays small enough to inline.
func isFinite(x float64) bool { return x-x == 0 }

// MemberDerivs returns the derivatives d1_k = a d1, d2_k = a² d2 of the
// tilted log normaliser in the cavity mean of a member x_k with
// coefficient a of a projection f = aᵀx + c, from those in the mean of f.
func MemberDerivs(a, d1, d2 float64) (d1k, d2k float64) { return a * d1, a * a * d2 }

// Projection is the cavity N(Mean, Var) of a projection f = aᵀx + c under
// factorised cavities N(x_k; m_k, v_k): start from Projection{Mean: c} and
// Add every member.
type Projection struct{ Mean, Var float64 }

// Add adds the member with coefficient a and cavity cav:
// Mean += a m_k, Var += a² v_k.
func (p *Projection) Add(a float64, cav Gaussian) {
	p.Mean += a * cav.Shift / cav.Prec
	p.Var += a * a / cav.Prec
}

// LeaveOneOut sets out[k] to the cavity of the projection f = aᵀx + c
// without member k, Mean = c + Σ_{j≠k} a_j m_j and Var = Σ_{j≠k} a_j² v_j,
// from the members' terms (terms[k] is Projection{}.Add(a_k, cav_k):
// {a_k m_k, a_k² v_k}). It sums prefixes and suffixes, never subtracting a
// member from the total, so a member whose term dominates the sum costs
// the others' sums no digits. out must be as long as terms and not alias it.
func LeaveOneOut(c float64, terms, out []Projection) {
	suf := Projection{}
	for k := len(terms) - 1; k >= 0; k-- {
		out[k] = suf
		suf.Mean += terms[k].Mean
		suf.Var += terms[k].Var
	}
	pre := Projection{Mean: c}
	for k, t := range terms {
		out[k].Mean += pre.Mean
		out[k].Var += pre.Var
		pre.Mean += t.Mean
		pre.Var += t.Var
	}
}

// MemberSite is the exact site of member x_k, with coefficient a, of a
// projection f = a x_k + g whose factor is Gaussian in f: site is the
// factor's own site in f (τ_f, ν_f; GaussianSiter: τ_f = 1/r, ν_f = y/r)
// and others the cavity N(g; M, V) of the rest of the projection, the
// constant included (LeaveOneOut). The tilted distribution f^u Π cav_j is
// Gaussian, and its marginal on x_k divided by x_k's cavity is
// N(y; a x_k + M, 1/(u τ_f) + V); the site is its 1/u-th power,
//
//	τ̃_k = a² / (1/τ_f + u V),   ν̃_k = a (y − M) / (1/τ_f + u V),
//
// the leave-one-out form of TiltedSite with MemberDerivs (which compute
// 1 + v_k d2_k = (r/u + V)/(r/u + V + a² v_k) and lose the digits of r/u + V
// that do not survive the sum with a² v_k). With one member (V = 0,
// M = c) it is τ̃ = a² τ_f, ν̃ = a (ν_f − τ_f c). ok is false when the
// result is not finite.
func MemberSite(site Gaussian, a float64, others Projection, u float64) (Gaussian, bool) {
	den := 1/site.Prec + u*others.Var
	y := site.Shift / site.Prec
	t := Gaussian{Prec: a * a / den, Shift: a * (y - others.Mean) / den}
	return t, den > 0 && isFinite(t.Prec) && isFinite(t.Shift)
}

// SiteUpdate is steps 4–6 of the site update for one scalar site (see the
// top of this file): the power, the clamp and the damping.
type SiteUpdate struct {
	Power   float64 // u > 0: 1 for EP, α for power EP
	Damping float64 // δ ∈ (0, 1]; 1 is undamped
	Clamp   bool    // τ̃ ← max(τ̃, 0) before damping (GPML infEP)
}

// Step returns the new site that replaces old, given the cavity and the
// tilted derivatives d1, d2 in its mean: TiltedSite, the clamp, then the
// damped step from old. ok is false (old must be kept and the update
// counted as skipped) when TiltedSite refuses or the result is not finite.
func (r SiteUpdate) Step(old, cav Gaussian, d1, d2 float64) (Gaussian, bool) {
	t, ok := TiltedSite(cav, d1, d2, r.Power)
	return r.settle(old, t, ok)
}

// Propose is Step for a whole scalar site: the new site of factor f with
// observation y at cavity cav (FactorSite: exact for a Gaussian factor,
// else from f's tilted derivatives), clamped and damped from old.
func (r SiteUpdate) Propose(f Tilter, y float64, old, cav Gaussian) (Gaussian, bool) {
	t, ok := FactorSite(f, y, cav, r.Power)
	return r.settle(old, t, ok)
}

// Settle is steps 5–6 (clamp, damping) for a new site t found by the
// caller (MemberSite; ok false: refused, old is kept).
func (r SiteUpdate) Settle(old, t Gaussian, ok bool) (Gaussian, bool) { return r.settle(old, t, ok) }

// settle is steps 5–6 (clamp, damping) of a new site t that step 4
// produced (ok) or refused.
func (r SiteUpdate) settle(old, t Gaussian, ok bool) (Gaussian, bool) {
	if !ok {
		return old, false
	}
	if r.Clamp && t.Prec < 0 {
		t.Prec = 0
	}
	t = old.Damp(t, r.Damping)
	if !isFinite(t.Prec) || !isFinite(t.Shift) {
		return old, false
	}
	return t, true
}

// SiteMessage writes the EP message (q̂ / cav)^{1/u} of any family to out,
// from the natural parameters of the projected tilted distribution q̂ and
// of the cavity: (η̂ − η\)/u (infer/mp; TiltedSite is the closed form of
// the scalar Gaussian).
func SiteMessage(out, tilted, cavity []float64, u float64) {
	for i := range out {
		out[i] = (tilted[i] - cavity[i]) / u
	}
}
