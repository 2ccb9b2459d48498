//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fg-infer/fg/internal/benchdata"
)

// gpSpec is one GP classification comparison: fg's EP and GPML's infEPx
// (GPML 4.2's infEP with the visiting order fixed to 1..n, a cold start and
// the stopping rule pinned), both for exactly sweeps sequential sweeps.
type gpSpec struct {
	name      string
	train     string // csv with a label column last (±1)
	xu        string // inducing inputs (FITC), "" for dense EP
	cov       string // "se" or "lin"
	hyp       []float64
	eps       float64 // > 0: the step (labeling-noise) likelihood
	sweeps    int
	tol       float64 // fg's tolerance: 1e-300 (never met) unless calibrated
	peerSkip  string
	once      bool
	writeData func() error // makes train (and xu) when they are generated
}

// fgModel is the spec written in fg's language.
func (s gpSpec) fgModel() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model bench_%s\n", strings.ReplaceAll(s.name, "-", "_"))
	fmt.Fprintf(&b, "data X = csv(%q, exclude = [\"label\"])\n", s.train)
	fmt.Fprintf(&b, "data y: spin[len(X)] = csv(%q, column = \"label\")\n", s.train)
	cov := fmt.Sprintf("linear(%.17g)", math.Exp(s.hyp[0]))
	if s.cov == "se" {
		cov = fmt.Sprintf("se(%.17g, %.17g)", math.Exp(s.hyp[0]), math.Exp(2*s.hyp[1]))
	}
	prior := cov + ", X"
	if s.xu != "" {
		fmt.Fprintf(&b, "data Z = csv(%q)\n", s.xu)
		prior += ", inducing = Z"
	}
	fmt.Fprintf(&b, "latent f: real[len(X)] ~ gp(%s)\n", prior)
	lik, extra := "probit(f[i])", ""
	if s.eps > 0 {
		// GPML clamps site precisions at zero (max(ttau, 0)).
		lik, extra = fmt.Sprintf("step(f[i], %.17g)", s.eps), ", nonnegative_sites = true"
	}
	fmt.Fprintf(&b, "for i in 0..len(X) {\n  y[i] ~ %s\n}\n", lik)
	fmt.Fprintf(&b, "infer ep { schedule = sequential, max_iter = %d, tol = %.17g, adapt_damping = false%s }\n", s.sweeps, max(s.tol, 1e-300), extra)
	return b.String()
}

// octave is the GPML driver: infEPx timed by tic/toc, then (dense EP) the
// marginals of f from the final sites, Σ = K − K S (I + S K S)⁻¹ S K with
// S = diag(√τ̃), outside the timed call.
func (s gpSpec) octave(peers, out string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "more off; warning('off', 'all');\nrun('%s');\naddpath('%s');\n",
		filepath.Join(peers, "src", "gpml", "startup.m"), filepath.Join(peers, "gpmlx"))
	fmt.Fprintf(&b, "d = dlmread('%s', ',', 1, 0); x = d(:, 1:end-1); y = d(:, end); n = numel(y);\n", s.train)
	hyp := make([]string, len(s.hyp))
	for i, h := range s.hyp {
		hyp[i] = strconv.FormatFloat(h, 'g', 17, 64)
	}
	fmt.Fprintf(&b, "hyp.mean = []; hyp.lik = []; hyp.cov = [%s];\n", strings.Join(hyp, "; "))
	base := "{@covSEiso}"
	if s.cov == "lin" {
		base = "{@covLINiso}"
	}
	cov := base
	fmt.Fprintf(&b, "opt = struct('max_sweep', %d, 'min_sweep', %d, 'tol', 0, 'order', 'fixed');\n", s.sweeps, s.sweeps)
	if s.xu != "" {
		fmt.Fprintf(&b, "xu = dlmread('%s', ',', 1, 0); opt.s = 1;\n", s.xu)
		cov = fmt.Sprintf("{@apxSparse, %s, xu}", base)
	}
	lik := "{@likErf}"
	if s.eps > 0 {
		lik = fmt.Sprintf("{@likStepNoise, %.17g}", s.eps)
		b.WriteString("opt.ttau_floor = 1e-300;\n") // GPML's apx.m needs τ̃ > 0 for 1./sqrt(W)
	}
	fmt.Fprintf(&b, "cov = %s; lik = %s;\n", cov, lik)
	b.WriteString("t0 = tic; [post, nlZ] = infEPx(hyp, {@meanZero}, cov, lik, x, y, opt); t = toc(t0);\n")
	fmt.Fprintf(&b, "fid = fopen('%s', 'w');\n", out)
	b.WriteString("fprintf(fid, 'nlZ %.17g\\nsweeps %d\\nseconds %.9g\\n', nlZ, post.sweeps, t);\n")
	if s.xu == "" {
		fmt.Fprintf(&b, "K = feval(%s{:}, hyp.cov, x); sW = post.sW;\n", base)
		b.WriteString("L = chol(eye(n) + (sW * sW') .* K); V = L' \\ (sW .* K);\n")
		b.WriteString("mu = K * post.alpha; v = diag(K) - sum(V .* V, 1)';\n")
		b.WriteString("fprintf(fid, 'marginals\\n'); fprintf(fid, '%.17g %.17g\\n', [mu v]');\n")
	}
	b.WriteString("fclose(fid);\n")
	return b.String()
}

// gpCase makes the benchCase of a spec in folder dir.
func gpCase(c *config, group string, s gpSpec) *benchCase {
	dir := filepath.Join(c.work, group, s.name)
	model, script := filepath.Join(dir, "model.fg"), filepath.Join(dir, "gpml.m")
	fgOut, peerOut := filepath.Join(dir, "fg.json"), filepath.Join(dir, "gpml.out")
	fgJSON := command{args: []string{c.fgBin, "run", model, "--json"}, dir: dir, stdout: fgOut}
	bc := &benchCase{group: group, name: s.name, peerSkip: s.peerSkip, once: s.once,
		fg:   command{args: []string{c.fgBin, "run", model}, dir: dir, stdout: filepath.Join(dir, "fg.txt")},
		peer: command{args: []string{"octave-cli", "-q", "-f", "--no-history", script}, dir: dir, stdout: filepath.Join(dir, "octave.log")},
	}
	bc.setup = func() error {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if s.writeData != nil {
			if err := s.writeData(); err != nil {
				return err
			}
		}
		if err := os.WriteFile(model, []byte(s.fgModel()), 0o644); err != nil {
			return err
		}
		if s.peerSkip == "" {
			if err := calibrate(&s, fgJSON, model, fgOut); err != nil {
				return err
			}
			if err := agreementRun(fgJSON); err != nil {
				return err
			}
		}
		return os.WriteFile(script, []byte(s.octave(c.peers, peerOut)), 0o644)
	}
	bc.engine = func() (float64, float64) {
		var fs, ps float64
		if r, err := readFGResult(fgOut); err == nil {
			fs = r.Seconds
		}
		if g, err := readGPML(peerOut); err == nil {
			ps = g.seconds
		}
		return fs, ps
	}
	bc.agree = func() string {
		r, err := readFGResult(fgOut)
		if err != nil {
			return "fg: " + err.Error()
		}
		g, err := readGPML(peerOut)
		if err != nil {
			return "GPML: " + err.Error()
		}
		if r.LogEvidence == nil {
			return "fg: no log evidence (" + r.Status + ")"
		}
		nlZ := -*r.LogEvidence
		txt := fmt.Sprintf("nlZ %.10g vs %.10g (rel %.1e); sweeps %d/%d", nlZ, g.nlZ, math.Abs(nlZ-g.nlZ)/math.Abs(g.nlZ), r.Iterations, g.sweeps)
		if g.mean != nil {
			v := r.Variables["f"]
			if len(v.Mean) != len(g.mean) {
				return txt + fmt.Sprintf("; %d marginals vs %d", len(v.Mean), len(g.mean))
			}
			txt += fmt.Sprintf("; max |Δ mean| %.1e, |Δ var| %.1e", maxAbsDiff(v.Mean, g.mean), maxAbsDiff(v.Var, g.vr))
		}
		return txt
	}
	return bc
}

// agreementRun is the untimed run of fg with --json whose output the
// agreement and the engine time are read from; the timed runs print fg's
// default table, as `fg run FILE` does.
func agreementRun(fgJSON command) error {
	if m := run(fgJSON, 24*time.Hour); m.err != nil {
		return fmt.Errorf("fg --json: %v", m.err)
	}
	return nil
}

// calibrate sets fg's tolerance so that its own stopping rule (the change
// R of the posterior means and standard deviations) is first met after
// exactly s.sweeps sweeps, and rewrites the model (see calibratedTol).
func calibrate(s *gpSpec, fg command, model, out string) error {
	tol, err := calibratedTol(fg, out, s.sweeps)
	if err != nil || tol == 0 {
		return err
	}
	s.tol = tol
	return os.WriteFile(model, []byte(s.fgModel()), 0o644)
}

// calibratedTol is the tolerance at which fg's stopping rule is first met
// after exactly k sweeps or passes: fg reports log Z only for a run that
// converged by its rule, and the peer's log Z after the same sweeps is what
// it is compared with. An untimed run of fg (its tolerance never met) to
// the limit of k gives the trace R_1, ..., R_k of its convergence measure;
// the tolerance is the geometric mean of R_{k−1} and R_k. It is 0 when R
// does not decrease at the last sweep: the run then keeps an unmet
// tolerance, and fg reports marginals without log Z.
func calibratedTol(fg command, out string, k int) (float64, error) {
	if m := run(fg, 24*time.Hour); m.err != nil {
		return 0, fmt.Errorf("calibration run: %v", m.err)
	}
	r, err := readFGResult(out)
	if err != nil {
		return 0, err
	}
	t := r.Trace
	if len(t) != k || k < 2 || !(t[k-1] < t[k-2]) || t[k-1] <= 0 {
		return 0, nil
	}
	return math.Sqrt(t[k-2] * t[k-1]), nil
}

// fgResult is the part of `fg run --json`'s first result the agreement reads.
type fgResult struct {
	Status      string    `json:"status"`
	Iterations  int       `json:"iterations"`
	Seconds     float64   `json:"seconds"`
	LogEvidence *float64  `json:"log_evidence"`
	Trace       []float64 `json:"trace"`
	Variables   map[string]struct {
		Mean  []float64   `json:"mean"`
		Var   []float64   `json:"var"`
		Probs [][]float64 `json:"probs"`
	} `json:"variables"`
}

func readFGResult(path string) (*fgResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out struct {
		Results []fgResult `json:"results"`
	}
	if err := json.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(&out); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(out.Results) == 0 {
		return nil, fmt.Errorf("%s: no results", path)
	}
	return &out.Results[0], nil
}

type gpmlOut struct {
	nlZ, seconds float64
	sweeps       int
	mean, vr     []float64
}

func readGPML(path string) (*gpmlOut, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var g gpmlOut
	marg := false
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) == 0:
		case marg && len(f) == 2:
			m, _ := strconv.ParseFloat(f[0], 64)
			v, _ := strconv.ParseFloat(f[1], 64)
			g.mean, g.vr = append(g.mean, m), append(g.vr, v)
		case f[0] == "marginals":
			marg = true
		case f[0] == "nlZ" && len(f) == 2:
			g.nlZ, _ = strconv.ParseFloat(f[1], 64)
		case f[0] == "sweeps" && len(f) == 2:
			g.sweeps, _ = strconv.Atoi(f[1])
		case f[0] == "seconds" && len(f) == 2:
			g.seconds, _ = strconv.ParseFloat(f[1], 64)
		}
	}
	if g.sweeps == 0 {
		return nil, fmt.Errorf("%s: no result", path)
	}
	return &g, nil
}

func maxAbsDiff(a, b []float64) float64 {
	d := 0.0
	for i := range min(len(a), len(b)) {
		d = max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// gpmlRepro are GPML's reproduction cases (data/reference/gpml): the
// inputs and hyperparameters of each summary.tsv, both sides run for the
// reference's number of sweeps.
func gpmlRepro(c *config) []*benchCase {
	ref := filepath.Join(c.repo, "data", "reference", "gpml")
	entries, err := os.ReadDir(ref)
	if err != nil {
		fatal(err)
	}
	var out []*benchCase
	for _, e := range entries {
		if !e.IsDir() || strings.HasSuffix(e.Name(), "_opt100") {
			continue
		}
		sum, err := readSummary(filepath.Join(ref, e.Name(), "summary.tsv"))
		if err != nil {
			fatal(err)
		}
		s := gpSpec{name: e.Name(), train: filepath.Join(ref, e.Name(), "train.csv"), cov: "se"}
		if sum["cov"] == "covLINiso" {
			s.cov = "lin"
		}
		for _, f := range strings.Fields(sum["hyp.cov"]) {
			h, _ := strconv.ParseFloat(f, 64)
			s.hyp = append(s.hyp, h)
		}
		if eps, ok := strings.CutPrefix(sum["lik"], "stepnoise:"); ok {
			s.eps, _ = strconv.ParseFloat(eps, 64)
		}
		s.sweeps, _ = strconv.Atoi(sum["sweeps"])
		out = append(out, gpCase(c, "gpml", s))
	}
	return out
}

func readSummary(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, "\t"); ok {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m, nil
}

// gpEP are probit GPs on 2-D inputs (benchdata.ProbitGPData, the data of
// cmd/fgbench: SE kernel with lengthscale 0.7 and variance 2), 5 sweeps.
func gpEP(c *config) []*benchCase {
	var out []*benchCase
	for _, n := range c.gpN {
		dir := filepath.Join(c.work, "gpep", fmt.Sprint(n))
		s := gpSpec{name: fmt.Sprint(n), train: filepath.Join(dir, "train.csv"), cov: "se",
			hyp: []float64{math.Log(0.7), 0.5 * math.Log(2)}, sweeps: 5, once: n >= 2000}
		s.writeData = func() error { return writeProbitGP(s.train, "", n, 0) }
		if n > c.gpmlMaxN[0] {
			s.peerSkip = fmt.Sprintf("GPML's dense EP grows as n³ (766 s at n = 2000 measured on this machine class, about 100 min at n = 4000): over -gpml-max %d", c.gpmlMaxN[0])
		}
		out = append(out, gpCase(c, "gpep", s))
	}
	return out
}

// writeProbitGP writes benchdata.ProbitGPData(n, n) to train and, when
// m > 0, every (n/m)-th input to xu as the inducing inputs.
func writeProbitGP(train, xu string, n, m int) error {
	X, y := benchdata.ProbitGPData(n, uint64(n))
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = []float64{X.At(i, 0), X.At(i, 1)}
	}
	return writeCSV(train, xu, []string{"x1", "x2"}, rows, y, m)
}

func writeCSV(train, xu string, names []string, rows [][]float64, y []float64, m int) error {
	var b strings.Builder
	b.WriteString(strings.Join(names, ",") + ",label\n")
	for i, r := range rows {
		for _, v := range r {
			b.WriteString(strconv.FormatFloat(v, 'g', 17, 64) + ",")
		}
		fmt.Fprintf(&b, "%g\n", y[i])
	}
	if err := os.WriteFile(train, []byte(b.String()), 0o644); err != nil {
		return err
	}
	if m == 0 {
		return nil
	}
	b.Reset()
	b.WriteString(strings.Join(names, ",") + "\n")
	for k := range m {
		r := rows[k*len(rows)/m]
		for j, v := range r {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(v, 'g', 17, 64))
		}
		b.WriteByte('\n')
	}
	return os.WriteFile(xu, []byte(b.String()), 0o644)
}

// fitc are sparse GPs under GPML's FITC approximation (apxSparse, opt.s =
// 1), 10 sweeps: n = 3067 is the spam training split (57 features z-scored
// with the training mean and population deviation, m = 50 inducing inputs,
// every 61st training input, log ℓ = 2, log σf = 0); other n are the 2-D
// probit data of gpEP with m = 100.
func fitc(c *config) []*benchCase {
	var out []*benchCase
	for _, n := range c.fitcN {
		name := fmt.Sprint(n)
		if n == 3067 {
			name = "spam-3067"
		}
		dir := filepath.Join(c.work, "fitc", name)
		s := gpSpec{name: name, train: filepath.Join(dir, "train.csv"), xu: filepath.Join(dir, "xu.csv"),
			cov: "se", sweeps: 10}
		if n == 3067 {
			s.hyp = []float64{2, 0}
			s.writeData = func() error { return writeSpam(c.repo, s.train, s.xu, 50) }
		} else {
			s.hyp = []float64{math.Log(0.7), 0.5 * math.Log(2)}
			s.writeData = func() error { return writeProbitGP(s.train, s.xu, n, 100) }
		}
		out = append(out, gpCase(c, "fitc", s))
	}
	return out
}

// writeSpam writes the z-scored spam training split and m inducing inputs.
func writeSpam(repo, train, xu string, m int) error {
	b, err := os.ReadFile(filepath.Join(repo, "data", "classification", "splits", "spam_train.csv"))
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	names := strings.Split(lines[0], ",")
	d := len(names) - 1
	var rows [][]float64
	var y []float64
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if len(f) != d+1 {
			return fmt.Errorf("spam_train.csv: %d fields, want %d", len(f), d+1)
		}
		r := make([]float64, d)
		for j := range r {
			if r[j], err = strconv.ParseFloat(f[j], 64); err != nil {
				return err
			}
		}
		lab, err := strconv.ParseFloat(f[d], 64)
		if err != nil {
			return err
		}
		rows, y = append(rows, r), append(y, math.Copysign(1, lab))
	}
	for j := range d {
		mean, sq := 0.0, 0.0
		for _, r := range rows {
			mean += r[j]
		}
		mean /= float64(len(rows))
		for _, r := range rows {
			sq += (r[j] - mean) * (r[j] - mean)
		}
		sd := math.Sqrt(sq / float64(len(rows)))
		if sd == 0 {
			sd = 1
		}
		for _, r := range rows {
			r[j] = (r[j] - mean) / sd
		}
	}
	return writeCSV(train, xu, names[:d], rows, y, m)
}
