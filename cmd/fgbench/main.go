// Command fgbench measures fg's engines against the machine's own limits
// and prints one table: for each performance target (docs/performance.md),
// fg's time, the time the machine needs for the unavoidable work (measured
// here, on the same backend and GOMAXPROCS), and their ratio.
//
//	go run ./cmd/fgbench                         # EP n = 1000, 2000; BP grids 100, 300, 1000
//	go run ./cmd/fgbench -ep 4000 -grid 1000     # other sizes
//	go run -tags openblas ./cmd/fgbench          # the OpenBLAS build
//	GOMAXPROCS=1 go run ./cmd/fgbench            # one core
//
// Limits:
//   - memory bandwidth: a streaming copy of 256 MiB (bytes read + written per second);
//   - dense algebra: one Cholesky (mat.Cholesky) and one n×n×n Dgemm at each n.
//
// Rows:
//   - EP sequential sweep (marginal cost of one sweep of a probit GP: the run
//     time at 5 sweeps minus that at 1, over 4): its n³ flops of rank-1
//     updates against Dgemm speed;
//   - EP parallel sweep: its Cholesky and n-right-hand-side triangular
//     solve (4/3 n³ flops) against Dgemm speed, and against one Cholesky;
//   - EP whole run of 5 sequential sweeps against 5 marginal sweeps
//     (target: ≤ 1.3);
//   - fg's whole run (csv, compile with the kernel matrix, EP, log Z,
//     marginals; through the Go API) of 5 sequential sweeps against 5
//     marginal sweeps and one Cholesky, and its peak heap in n×n matrices
//     (target: ≤ 4);
//   - BP pass on an r×r Ising grid (sequential and parallel schedule):
//     against reading and writing its message state once at the copy
//     bandwidth — the ratio is the fraction of bandwidth reached.
//
// Numbers are wall-clock minima over -repeat runs; on a shared machine
// report the load average printed in the header.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/bp"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/internal/benchdata"
	"github.com/fg-infer/fg/internal/openblas"
	"gonum.org/v1/gonum/mat"
)

func main() {
	epSizes := flag.String("ep", "1000,2000", "EP problem sizes n (comma-separated; empty: none)")
	grids := flag.String("grid", "100,300,1000", "BP Ising grid sides r (r×r; comma-separated; empty: none)")
	repeat := flag.Int("repeat", 2, "runs per measurement (the minimum is reported)")
	flag.Parse()
	ns, err1 := ints(*epSizes)
	rs, err2 := ints(*grids)
	if err1 != nil || err2 != nil || *repeat < 1 {
		fmt.Fprintln(os.Stderr, "fgbench: -ep and -grid take comma-separated positive integers, -repeat ≥ 1")
		os.Exit(2)
	}
	b := &bench{repeat: *repeat, w: tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("fgbench: backend %s, GOMAXPROCS %d, %s/%s, load average %s\n",
		openblas.Backend, runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, strings.TrimSpace(string(load)))
	bw := b.bandwidth()
	fmt.Printf("memory bandwidth (streaming copy of 256 MiB, read + write): %.1f GB/s\n\n", bw/1e9)
	fmt.Fprintln(b.w, "what\tsize\tfg\tmachine limit\tlimit\tfg/limit\t")
	for _, n := range ns {
		b.wholeRun(n, b.ep(n))
	}
	for _, r := range rs {
		b.bp(r, bw)
	}
	b.w.Flush()
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad size %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}

type bench struct {
	repeat int
	w      *tabwriter.Writer
}

// time returns the minimum wall time of f over b.repeat runs.
func (b *bench) time(f func()) time.Duration {
	best := time.Duration(1<<63 - 1)
	for i := 0; i < b.repeat; i++ {
		runtime.GC()
		t := time.Now()
		f()
		best = min(best, time.Since(t))
	}
	return best
}

func (b *bench) row(what, size string, fg time.Duration, limit string, lim time.Duration) {
	fmt.Fprintf(b.w, "%s\t%s\t%s\t%s\t%s\t%.2f\t\n", what, size, sec(fg), limit, sec(lim), fg.Seconds()/lim.Seconds())
}

func sec(d time.Duration) string { return fmt.Sprintf("%.4g s", d.Seconds()) }

// bandwidth returns the bytes read and written per second by copy() of
// 256 MiB.
func (b *bench) bandwidth() float64 {
	const size = 256 << 20
	src, dst := make([]byte, size), make([]byte, size)
	for i := range src {
		src[i], dst[i] = byte(i), 1 // touch every page before timing
	}
	t := b.time(func() { copy(dst, src) })
	return 2 * size / t.Seconds()
}

// ep prints the EP rows of size n and returns the unavoidable algebra of a
// run of 5 sequential sweeps: 5 marginal sweeps and one Cholesky.
func (b *bench) ep(n int) time.Duration {
	p := benchdata.ProbitGP(n, uint64(n))
	A := mat.NewSymDense(n, nil)
	A.CopySym(p.Cov)
	for i := 0; i < n; i++ {
		A.SetSym(i, i, A.At(i, i)+1)
	}
	chol := b.time(func() {
		var c mat.Cholesky
		c.Factorize(A)
	})
	var C mat.Dense
	D := mat.DenseCopyOf(A) // Dense operands: Mul of SymDense would be Dsymm
	gemm := b.time(func() { C.Mul(D, D) })
	flop := gemm.Seconds() / (2 * float64(n) * float64(n) * float64(n)) // seconds per flop
	at := func(flops float64) time.Duration { return time.Duration(flops * flop * 1e9) }
	run := func(sched infer.Schedule, sweeps int) time.Duration {
		s := ep.Settings{Settings: infer.Settings{Schedule: sched, MaxIter: sweeps, Tol: 1e-300}}
		return b.time(func() {
			if _, err := ep.Run(context.Background(), p, s); err != nil {
				fmt.Fprintln(os.Stderr, "fgbench:", err)
				os.Exit(1)
			}
		})
	}
	size := fmt.Sprintf("n=%d", n)
	n3 := float64(n) * float64(n) * float64(n)
	b.row("Cholesky (mat.Cholesky)", size, chol, "n³/3 flops at Dgemm speed", at(n3/3))
	seq1, seq5 := run(infer.Sequential, 1), run(infer.Sequential, 5)
	sweep := max((seq5-seq1)/4, time.Nanosecond)
	b.row("EP sequential sweep", size, sweep, "n³ flops at Dgemm speed", at(n3))
	b.row("EP run, 5 sequential sweeps", size, seq5, "5 sequential sweeps", 5*sweep)
	par1, par5 := run(infer.Parallel, 1), run(infer.Parallel, 5)
	psweep := max((par5-par1)/4, time.Nanosecond)
	b.row("EP parallel sweep", size, psweep, "4/3 n³ flops at Dgemm speed", at(4*n3/3))
	b.row("EP parallel sweep", size, psweep, "one Cholesky", chol)
	b.row("EP run, 5 parallel sweeps", size, par5, "5 parallel sweeps", 5*psweep)
	return 5*sweep + chol
}

// bpPasses is the number of passes a BP pass time is the average of.
const bpPasses = 10

// bpPass returns the time of one pass (its updates, beliefs and
// convergence test) of schedule sched, timed from the end of the run's
// first pass to the end of pass 1 + bpPasses (the Progress callback), so
// that setting up and finishing the run (log Z, marginals) are outside;
// the minimum over b.repeat runs.
func (b *bench) bpPass(p *bp.Problem, sched infer.Schedule) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range b.repeat {
		runtime.GC()
		var first, last time.Time
		s := bp.Settings{Settings: infer.Settings{Schedule: sched, MaxIter: 1 + bpPasses, Tol: 1e-300}}
		s.Progress = func(iter int, _ float64) {
			switch iter {
			case 1:
				first = time.Now()
			case 1 + bpPasses:
				last = time.Now()
			}
		}
		res, err := p.Run(context.Background(), s)
		if err == nil && res.Iterations != 1+bpPasses {
			err = fmt.Errorf("BP stopped after %d passes: %s", res.Iterations, res.Message)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fgbench:", err)
			os.Exit(1)
		}
		best = min(best, last.Sub(first)/bpPasses)
	}
	return best
}

func (b *bench) bp(r int, bw float64) {
	p, err := bp.RandomIsingGrid(r, r, 1)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fgbench:", err)
		os.Exit(2)
	}
	// One pass reads every message once and writes it once.
	msgBytes, err := p.MessageBytes(bp.Settings{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "fgbench:", err)
		os.Exit(1)
	}
	stream := time.Duration(2 * float64(msgBytes) / bw * 1e9)
	size := fmt.Sprintf("%d×%d", r, r)
	for _, sched := range []infer.Schedule{infer.Sequential, infer.Parallel} {
		pass := b.bpPass(p, sched)
		b.row(fmt.Sprintf("BP %v pass", sched), size, pass, "message state read+written once", stream)
	}
}
