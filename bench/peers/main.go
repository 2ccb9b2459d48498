//go:build unix

// Command peers runs fg and the peer systems it reproduces — GPML 4.2 under
// Octave and libDAI 0.3 — on the same inputs with the same sweeps or passes,
// interleaved, and writes one table of wall and CPU time, peak memory, their
// ratios, the load average and the agreement of the results. See README.md.
//
//	go run ./bench/peers -peers /path/to/peers-build [-cases gpml,gpep,fitc,bp,jtree] [-out DIR]
//
// The peers folder is the one the peers' build.sh builds (GPML, the
// patched infEPx, libDAI, createfg and dai_run; bench/peers/README.md says
// where the script lives); FG_PEERS names it when
// -peers is not given. Without it the command says so and stops: it is
// never part of the project's tests.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/fg-infer/fg/internal/benchdata"
)

// benchCase is one comparison: the fg command and the peer's on the same
// inputs, made by setup, and how to read their results.
type benchCase struct {
	group, name string
	setup       func() error
	fg, peer    command
	// peerSkip says why the peer is not run (fg alone is then measured).
	peerSkip string
	// engine returns the seconds each side reports for the inference call
	// itself (0 when unknown) and agree the agreement of the results.
	engine func() (fg, peer float64)
	agree  func() string
	// once: one run per side whatever -repeat (a long case).
	once bool
}

type config struct {
	peers, work, repo, fgBin string
	repeat                   int
	timeout                  time.Duration
	gpN, gpmlMaxN            []int
	fitcN                    []int
	grids                    []int
	passes                   int
}

func main() {
	var c config
	var cases, gpN, fitcN, grids string
	var gpmlMax int
	flag.StringVar(&c.peers, "peers", os.Getenv("FG_PEERS"), "the folder build.sh built (default $FG_PEERS)")
	flag.StringVar(&c.work, "work", filepath.Join(os.TempDir(), "fg-peers-bench"), "scratch folder for inputs and outputs")
	flag.StringVar(&c.fgBin, "fg", "", "the fg binary to measure (default: go build ./cmd/fg into -work)")
	flag.StringVar(&cases, "cases", "gpml,gpep,fitc,bp,jtree", "case groups to run, comma-separated")
	flag.StringVar(&gpN, "ep", "1000,2000,4000", "GP EP sizes n")
	flag.IntVar(&gpmlMax, "gpml-max", 2000, "largest GP EP n given to GPML (GPML's dense EP grows as n³: 766 s at n = 2000)")
	flag.StringVar(&fitcN, "fitc", "3067,10000", "FITC sizes n (3067: spam, m = 50; others: 2-D synthetic, m = 100)")
	flag.StringVar(&grids, "grid", "100,300,1000", "createfg grid sides r (r×r)")
	flag.IntVar(&c.passes, "passes", 20, "BP passes on the grids")
	flag.IntVar(&c.repeat, "repeat", 3, "runs of each side per case (long cases run once)")
	flag.DurationVar(&c.timeout, "timeout", 20*time.Minute, "a run is killed after this long")
	out := flag.String("out", "", "also write the table to this file (default WORK/peers.md)")
	flag.Parse()

	if c.peers == "" {
		fmt.Fprintln(os.Stderr, "bench/peers: no peers folder: pass -peers DIR or set FG_PEERS to the folder the peers' build.sh built (see bench/peers/README.md); nothing was run")
		os.Exit(2)
	}
	var err error
	if c.peers, err = filepath.Abs(c.peers); err != nil {
		fatal(err)
	}
	for _, p := range []struct{ path, what string }{
		{filepath.Join(c.peers, "src", "gpml", "startup.m"), "GPML (src/gpml/startup.m)"},
		{filepath.Join(c.peers, "gpmlx", "infEPx.m"), "infEPx.m"},
		{filepath.Join(c.peers, "dai_run"), "dai_run"},
		{filepath.Join(c.peers, "src", "libDAI", "utils", "createfg"), "libDAI's createfg"},
		{gnuTime, "GNU time (apt-get install time)"},
	} {
		if err := need(p.path, p.what); err != nil {
			fatal(fmt.Errorf("%v: is %s a folder built by the peers' build.sh?", err, c.peers))
		}
	}
	if c.gpN, err = ints(gpN); err == nil {
		if c.fitcN, err = ints(fitcN); err == nil {
			c.grids, err = ints(grids)
		}
	}
	if err != nil {
		fatal(err)
	}
	c.gpmlMaxN = []int{gpmlMax}
	if c.repo, err = repoRoot(); err != nil {
		fatal(err)
	}
	if err := os.MkdirAll(c.work, 0o755); err != nil {
		fatal(err)
	}
	if c.fgBin == "" {
		c.fgBin = filepath.Join(c.work, "fg")
		build := exec.Command("go", "build", "-o", c.fgBin, "./cmd/fg")
		build.Dir, build.Stdout, build.Stderr = c.repo, os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fatal(fmt.Errorf("go build ./cmd/fg: %v", err))
		}
	}
	if *out == "" {
		*out = filepath.Join(c.work, "peers.md")
	}

	var all []*benchCase
	for _, g := range strings.Split(cases, ",") {
		switch strings.TrimSpace(g) {
		case "gpml":
			all = append(all, gpmlRepro(&c)...)
		case "gpep":
			all = append(all, gpEP(&c)...)
		case "fitc":
			all = append(all, fitc(&c)...)
		case "bp":
			all = append(all, bpGrids(&c)...)
			all = append(all, bpTestGraphs(&c)...)
		case "jtree":
			all = append(all, jtree(&c)...)
		case "":
		default:
			fatal(fmt.Errorf("unknown case group %q (gpml, gpep, fitc, bp, jtree)", g))
		}
	}
	t, err := newTable(*out, &c)
	if err != nil {
		fatal(err)
	}
	for _, bc := range all {
		f, p := runCase(&c, bc)
		t.row(bc, f, p)
	}
	t.close()
}

// sideRuns are the runs of one side of a case.
type sideRuns []measure

// runCase prepares the inputs and runs both sides -repeat times, the
// order alternating (fg first, then the peer first, ...), so that a change
// of the machine's load falls on both.
func runCase(c *config, bc *benchCase) (fgRuns, peerRuns sideRuns) {
	fmt.Fprintf(os.Stderr, "== %s/%s\n", bc.group, bc.name)
	if err := bc.setup(); err != nil {
		return sideRuns{{err: fmt.Errorf("setup: %v", err)}}, nil
	}
	reps := c.repeat
	if bc.once {
		reps = 1
	}
	for r := range reps {
		sides := []func(){
			func() { fgRuns = append(fgRuns, logRun("fg", bc.fg, c.timeout)) },
			func() {
				if bc.peerSkip == "" {
					peerRuns = append(peerRuns, logRun("peer", bc.peer, c.timeout))
				}
			},
		}
		if r%2 == 1 {
			slices.Reverse(sides)
		}
		for _, s := range sides {
			s()
		}
		if failed(fgRuns) || failed(peerRuns) {
			break
		}
		// A run of over a minute is measured once: the ratio is then
		// far above the run-to-run noise.
		if last(fgRuns).wall > time.Minute || (len(peerRuns) > 0 && last(peerRuns).wall > time.Minute) {
			break
		}
	}
	return fgRuns, peerRuns
}

func logRun(who string, c command, timeout time.Duration) measure {
	m := run(c, timeout)
	fmt.Fprintf(os.Stderr, "   %-4s wall %8.3f s  cpu %8.3f s  rss %6.0f MiB  load %.2f  %v\n",
		who, m.wall.Seconds(), m.cpu.Seconds(), float64(m.maxRSS)/(1<<20), m.load, errText(m.err))
	return m
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func last(s sideRuns) measure { return s[len(s)-1] }

func failed(s sideRuns) bool { return len(s) > 0 && last(s).err != nil }

// summary is the median wall and CPU time, the largest peak RSS and the
// range of load averages of a side's runs; err is the first failure.
func (s sideRuns) summary() (wall, cpu time.Duration, rss int64, loadLo, loadHi float64, err error) {
	if len(s) == 0 {
		return
	}
	var walls, cpus []time.Duration
	loadLo = s[0].load
	for _, m := range s {
		if m.err != nil {
			return 0, 0, 0, 0, 0, m.err
		}
		walls, cpus = append(walls, m.wall), append(cpus, m.cpu)
		rss = max(rss, m.maxRSS)
		loadLo, loadHi = min(loadLo, m.load), max(loadHi, m.load)
	}
	return median(walls), median(cpus), rss, loadLo, loadHi, nil
}

func median(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

// table writes the results as a Markdown table, a row as soon as a case
// is done, to stdout and to a file.
type table struct {
	f *os.File
	w *bufio.Writer
}

func newTable(path string, c *config) (*table, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	t := &table{f: f, w: bufio.NewWriter(f)}
	t.printf("# fg against its peers, %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	t.printf("Machine: %s, %d cores (GOMAXPROCS %d), %s; load average at start %.2f.\n", cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0), memTotal(), benchdata.LoadAvg())
	t.printf("fg: %s (%s, pure-Go BLAS unless built otherwise). Peers: %s, %s; Octave's BLAS: OpenBLAS, threads = cores.\n",
		c.fgBin, gitDescribe(c.repo), readTrim(filepath.Join(c.peers, "src", "gpml.version")), readTrim(filepath.Join(c.peers, "src", "libDAI.version")))
	t.printf("Command: `go run ./bench/peers %s`\n\n", strings.Join(os.Args[1:], " "))
	t.printf("Medians over the runs (each side run the same number of times, interleaved); CPU = user + system of the process and its children (wait4 rusage); RSS = peak resident set; ratio = peer / fg; engine = the seconds each side reports for the inference call itself (fg: `seconds` of --json; GPML: tic/toc around infEPx; libDAI: dai_run's init + run).\n\n")
	t.printf("| case | runs | fg wall | fg CPU | fg RSS | peer wall | peer CPU | peer RSS | CPU ratio | wall ratio | RSS ratio | engine fg / peer | load | agreement |\n")
	t.printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	return t, nil
}

func (t *table) printf(format string, args ...any) {
	fmt.Fprintf(t.w, format, args...)
	fmt.Printf(format, args...)
}

func (t *table) row(bc *benchCase, fgRuns, peerRuns sideRuns) {
	fw, fc, fr, fl, fh, ferr := fgRuns.summary()
	name := bc.group + " " + bc.name
	if ferr != nil {
		t.printf("| %s | | fg failed: %s | | | | | | | | | | | |\n", name, oneLine(ferr))
		t.w.Flush()
		return
	}
	agree, engine := "", ""
	row := fmt.Sprintf("| %s | %d/%d | %s | %s | %s ", name, len(fgRuns), len(peerRuns), secs(fw), secs(fc), mib(fr))
	pw, pc, pr, pl, ph, perr := peerRuns.summary()
	switch {
	case bc.peerSkip != "":
		row += fmt.Sprintf("| not run: %s | | | | | ", bc.peerSkip)
		pl, ph = fl, fh
	case perr != nil:
		row += fmt.Sprintf("| failed: %s | | | | | ", oneLine(perr))
		pl, ph = fl, fh
	default:
		row += fmt.Sprintf("| %s | %s | %s | %s | %s | %s ", secs(pw), secs(pc), mib(pr), ratio(pc, fc), ratio(pw, fw), ratioF(float64(pr), float64(fr)))
		agree = bc.agree()
	}
	if bc.engine != nil {
		ef, ep := bc.engine()
		engine = fmt.Sprintf("%s / %s", secsF(ef), secsF(ep))
	}
	row += fmt.Sprintf("| %s | %.1f–%.1f | %s |\n", engine, min(fl, pl), max(fh, ph), agree)
	t.printf("%s", row)
	t.w.Flush()
}

func (t *table) close() {
	t.w.Flush()
	t.f.Close()
}

func oneLine(err error) string {
	s := strings.ReplaceAll(err.Error(), "\n", " ")
	s = strings.ReplaceAll(s, "|", "/")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

func secs(d time.Duration) string { return secsF(d.Seconds()) }

func secsF(s float64) string {
	switch {
	case s <= 0:
		return "–"
	case s < 10:
		return fmt.Sprintf("%.3g s", s)
	default:
		return fmt.Sprintf("%.0f s", s)
	}
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

func ratio(peer, fg time.Duration) string { return ratioF(peer.Seconds(), fg.Seconds()) }

func ratioF(peer, fg float64) string {
	if fg <= 0 {
		return "–"
	}
	r := peer / fg
	if r >= 10 {
		return fmt.Sprintf("%.0f×", r)
	}
	return fmt.Sprintf("%.2g×", r)
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		var n int
		if _, err := fmt.Sscan(f, &n); err != nil || n <= 0 {
			return nil, fmt.Errorf("bad size %q in %q", f, s)
		}
		out = append(out, n)
	}
	return out, nil
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "bench/peers:", err)
	os.Exit(1)
}

// repoRoot is the folder of the fg module (go env GOMOD's folder).
func repoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run bench/peers from inside the fg repository")
	}
	return filepath.Dir(mod), nil
}

func gitDescribe(dir string) string {
	out, err := exec.Command("git", "-C", dir, "log", "-1", "--format=%h %cs").Output()
	if err != nil {
		return "unknown commit"
	}
	return "commit " + strings.TrimSpace(string(out))
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "model name") {
			if _, v, ok := strings.Cut(l, ":"); ok {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH
}

func memTotal() string {
	b, _ := os.ReadFile("/proc/meminfo")
	var kb int64
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "MemTotal:") {
			fmt.Sscan(strings.TrimPrefix(l, "MemTotal:"), &kb)
		}
	}
	return fmt.Sprintf("%.1f GiB RAM", float64(kb)/(1<<20))
}
