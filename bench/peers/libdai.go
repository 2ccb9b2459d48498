//go:build unix

package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// daiMethod is one libDAI method and fg's infer line for the same
// algorithm with the same passes.
type daiMethod struct {
	name, dai, fg string
	// passes > 0: fg's infer line has a %s for its tolerance, set by
	// calibratedTol so that fg stops after exactly passes passes.
	passes int
}

// gridMethods: plain BP, sequential (libDAI's SEQFIX order, which fg's
// sequential schedule follows) and parallel, with libDAI's fixed step
// (adapt_damping = false), for a fixed number of passes
// (a tolerance no change reaches). libDAI runs one pass more: its first
// pass also computes the messages of the single-variable factors (the
// fields), which start uniform, while fg absorbs those factors into the
// variables' priors, so that fg's pass k is libDAI's pass k + 1 (for the
// parallel schedule the marginals then agree to rounding).
func gridMethods(passes int) []daiMethod {
	return []daiMethod{
		{"bp-seq", fmt.Sprintf("BP[updates=SEQFIX,tol=0,maxiter=%d,logdomain=0,damping=0,inference=SUMPROD,verbose=0]", passes+1),
			fmt.Sprintf("bp { schedule = sequential, max_iter = %d, tol = %%s, adapt_damping = false }", passes), passes},
		{"bp-par", fmt.Sprintf("BP[updates=PARALL,tol=0,maxiter=%d,logdomain=0,damping=0,inference=SUMPROD,verbose=0]", passes+1),
			fmt.Sprintf("bp { schedule = parallel, max_iter = %d, tol = %%s, adapt_damping = false }", passes), passes},
	}
}

// convergedBP is BP run to convergence as the reference files were made
// (tolerance 1e-9 on the largest change of a belief, at most 10⁴ passes).
var convergedBP = daiMethod{"bp-seq-conv", "BP[updates=SEQFIX,tol=1e-9,maxiter=10000,logdomain=0,damping=0,inference=SUMPROD,verbose=0]",
	"bp { schedule = sequential, max_iter = 10000, tol = 1e-9, adapt_damping = false }", 0}

var jtreeMethod = daiMethod{"jtree", "JTREE[updates=HUGIN,verbose=0]", "exact", 0}

// daiCase runs method m on the libDAI file fgFile (made by make when not
// nil) with fg and libDAI's dai_run, both writing every marginal.
func daiCase(c *config, group, name, fgFile string, make func() error, m daiMethod, once bool) *benchCase {
	dir := filepath.Join(c.work, group, name, m.name)
	fgOut, daiOut, daiMarg := filepath.Join(dir, "fg.json"), filepath.Join(dir, "dai.out"), filepath.Join(dir, "dai.marg")
	fgJSON := command{args: []string{c.fgBin, "run", fgFile, "--method", m.fg, "--json"}, dir: dir, stdout: fgOut}
	bc := &benchCase{group: group, name: name + " " + m.name, once: once,
		fg:   command{args: []string{c.fgBin, "run", fgFile, "--method", m.fg}, dir: dir, stdout: filepath.Join(dir, "fg.txt")},
		peer: command{args: []string{filepath.Join(c.peers, "dai_run"), fgFile, m.dai, daiMarg}, dir: dir, stdout: daiOut},
	}
	bc.setup = func() error {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if make != nil {
			if err := make(); err != nil {
				return err
			}
		}
		if m.passes > 0 {
			fgJSON.args[4], bc.fg.args[4] = fmt.Sprintf(m.fg, "1e-300"), fmt.Sprintf(m.fg, "1e-300")
			tol, err := calibratedTol(fgJSON, fgOut, m.passes)
			if err != nil {
				return err
			}
			if tol > 0 {
				spec := fmt.Sprintf(m.fg, strconv.FormatFloat(tol, 'g', 17, 64))
				fgJSON.args[4], bc.fg.args[4] = spec, spec
			}
		}
		return agreementRun(fgJSON)
	}
	bc.engine = func() (float64, float64) {
		var fs, ps float64
		if r, err := readFGResult(fgOut); err == nil {
			fs = r.Seconds
		}
		if d, err := readDAI(daiOut); err == nil {
			ps = d["construct_s"] + d["init_s"] + d["run_s"]
		}
		return fs, ps
	}
	bc.agree = func() string { return daiAgreement(fgOut, daiOut, daiMarg) }
	return bc
}

// readDAI reads dai_run's "key value" lines.
func readDAI(path string) (map[string]float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[string]float64{}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, " "); ok {
			if x, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
				m[k] = x
			}
		}
	}
	if _, ok := m["iters"]; !ok {
		return nil, fmt.Errorf("%s: no result", path)
	}
	return m, nil
}

// daiAgreement compares fg's marginals and log Z with libDAI's: the
// largest difference of a state probability over all variables, |Δ log Z|
// and the passes each side ran.
func daiAgreement(fgOut, daiOut, daiMarg string) string {
	r, err := readFGResult(fgOut)
	if err != nil {
		return "fg: " + err.Error()
	}
	d, err := readDAI(daiOut)
	if err != nil {
		return "libDAI: " + err.Error()
	}
	f, err := os.Open(daiMarg)
	if err != nil {
		return "libDAI: " + err.Error()
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	maxDiff, n, missing := 0.0, 0, 0
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		v, ok := r.Variables["x"+fields[0]]
		if !ok || len(v.Probs) != 1 || len(v.Probs[0]) != len(fields)-1 {
			missing++
			continue
		}
		for s, t := range fields[1:] {
			p, _ := strconv.ParseFloat(t, 64)
			maxDiff = max(maxDiff, math.Abs(p-v.Probs[0][s]))
		}
		n++
	}
	txt := fmt.Sprintf("%d marginals: max |Δp| %.1e", n, maxDiff)
	if missing > 0 {
		txt += fmt.Sprintf(" (%d not comparable)", missing)
	}
	if r.LogEvidence != nil {
		txt += fmt.Sprintf("; |Δ log Z| %.1e", math.Abs(*r.LogEvidence-d["logZ"]))
	}
	if r.Status != "done" && r.Status != "" {
		txt += fmt.Sprintf("; passes %d/%.0f (fg %s)", r.Iterations, d["iters"], r.Status)
	}
	return txt
}

// createfg writes libDAI's r×r Ising grid (ISINGGAUSS: fields θ ~ N(0, 0.5²),
// couplings w ~ N(0, 0.5²), seed 1) to path unless it exists.
func createfg(c *config, path string, r int) func() error {
	return func() error {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		tmp := path + ".tmp"
		f, err := os.Create(tmp)
		if err != nil {
			return err
		}
		cmd := exec.Command(filepath.Join(c.peers, "src", "libDAI", "utils", "createfg"), "--type", "GRID",
			"--n1", fmt.Sprint(r), "--n2", fmt.Sprint(r), "--factors", "ISINGGAUSS",
			"--mean_th", "0", "--sigma_th", "0.5", "--mean_w", "0", "--sigma_w", "0.5", "--seed", "1")
		cmd.Stdout, cmd.Stderr = f, os.Stderr
		err = cmd.Run()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("createfg: %v", err)
		}
		return os.Rename(tmp, path)
	}
}

// bpGrids: BP, sequential and parallel, c.passes passes on createfg grids.
func bpGrids(c *config) []*benchCase {
	var out []*benchCase
	for _, r := range c.grids {
		file := filepath.Join(c.work, "libdai", fmt.Sprintf("grid%d.fg", r))
		for _, m := range gridMethods(c.passes) {
			out = append(out, daiCase(c, "libdai", fmt.Sprintf("grid %d²", r), file, createfg(c, file, r), m, r >= 1000))
		}
		if r <= 300 { // the fixed point, to compare with the passes above
			out = append(out, daiCase(c, "libdai", fmt.Sprintf("grid %d²", r), file, createfg(c, file, r), convergedBP, false))
		}
	}
	return out
}

// testGraphs are the libDAI files of data/reference/libdai and libDAI's own
// tests/ folder.
func testGraphs(c *config) []string {
	files, _ := filepath.Glob(filepath.Join(c.repo, "data", "reference", "libdai", "*.fg"))
	more, _ := filepath.Glob(filepath.Join(c.peers, "src", "libDAI", "tests", "*.fg"))
	return append(files, more...)
}

func graphName(path string) string { return strings.TrimSuffix(filepath.Base(path), ".fg") }

// bpTestGraphs: BP to convergence on the test graphs.
func bpTestGraphs(c *config) []*benchCase {
	var out []*benchCase
	for _, f := range testGraphs(c) {
		out = append(out, daiCase(c, "libdai", graphName(f), f, nil, convergedBP, false))
	}
	return out
}

// jtree: the junction tree (libDAI's JTREE with HUGIN updates, fg's exact
// method) on the test graphs and 12×12 and 20×20 createfg grids (the 100²
// grids' treewidth of 100 puts them out of reach of any exact method).
func jtree(c *config) []*benchCase {
	var out []*benchCase
	for _, f := range testGraphs(c) {
		out = append(out, daiCase(c, "libdai", graphName(f), f, nil, jtreeMethod, false))
	}
	for _, r := range []int{12, 20} {
		file := filepath.Join(c.work, "libdai", fmt.Sprintf("grid%d.fg", r))
		out = append(out, daiCase(c, "libdai", fmt.Sprintf("grid %d²", r), file, createfg(c, file, r), jtreeMethod, false))
	}
	return out
}
