package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/shard"
)

// TestMain initialises Beam (prism, Beam's local runner, by default).
func TestMain(m *testing.M) { ptest.MainWithDefault(m, "prism") }

const probitModel = `model beam_probit
data X = csv("part-000.csv", exclude = ["y"])
data y: spin[len(X)] = csv("part-000.csv", column = "y")
latent w: real[3] ~ normal(0, 1)
for i in 0..len(X) {
  y[i] ~ probit(dot(X[i], w))
}
infer ep { tol = 1e-10 }
`

// writeShards writes n probit points (x ~ N(0, I_3), y = sign(xᵀ(1, −0.5,
// 0.25) + noise)) as k csv shards and the model beside them.
func writeShards(t testing.TB, dir string, n, k int, seed uint64) Model {
	rng := rand.New(rand.NewPCG(seed, 11))
	files := make([]strings.Builder, k)
	for j := range files {
		files[j].WriteString("x1,x2,x3,y\n")
	}
	for i := 0; i < n; i++ {
		x := [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		y := 1
		if x[0]-0.5*x[1]+0.25*x[2]+rng.NormFloat64() < 0 {
			y = -1
		}
		fmt.Fprintf(&files[i*k/n], "%v,%v,%v,%d\n", x[0], x[1], x[2], y)
	}
	for j := range files {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%03d.csv", j)), []byte(files[j].String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "model.fg")
	if err := os.WriteFile(path, []byte(probitModel), 0o644); err != nil {
		t.Fatal(err)
	}
	return Model{Src: probitModel, Path: path, Items: []string{"X", "y"}}
}

func prism(ctx context.Context, p *beam.Pipeline) error {
	_, err := beam.Run(ctx, "prism", p)
	return err
}

func runBeam(t *testing.T, m Model, dir string, retries int) *shard.Result {
	t.Helper()
	cfg := Config{Model: m, Shards: filepath.Join(dir, "part-*.csv"), Out: t.TempDir(), Retries: retries, Execute: prism}
	res, _, _, err := Run(context.Background(), cfg)
	if err != nil || res.Status != infer.Converged {
		t.Fatalf("beam: %v %v %s", err, res.Status, res.Message)
	}
	return res
}

// inProcess runs infer/shard on the same shards compiled the same way.
func inProcess(t *testing.T, m Model, dir string) (*shard.Result, []ep.Site) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "part-*.csv"))
	p := &shard.Problem{}
	var all []ep.Site
	var s shard.Settings
	for _, path := range paths {
		data, _ := os.ReadFile(path)
		sb, err := m.Compile(data)
		if err != nil {
			t.Fatal(err)
		}
		p.Mean, p.Cov, s = sb.Mean, sb.Cov, sb.Settings
		p.Shards = append(p.Shards, sb.Sites)
		all = append(all, sb.Sites...)
	}
	res, err := shard.Run(context.Background(), p, s)
	if err != nil || res.Status != infer.Converged {
		t.Fatalf("in process: %v %v", err, res.Status)
	}
	return res, all
}

func compare(t *testing.T, what string, a, b *shard.Result, tol float64) {
	t.Helper()
	var d float64
	for i := range a.Mean {
		d = math.Max(d, math.Abs(a.Mean[i]-b.Mean[i]))
		for j := range a.Mean {
			d = math.Max(d, math.Abs(a.Cov.At(i, j)-b.Cov.At(i, j)))
		}
	}
	dz := math.Abs(a.LogZ - b.LogZ)
	t.Logf("%s: max |Δ| of mean and covariance %.2e, |Δ log Z| %.2e", what, d, dz)
	if !(d <= tol) || !(dz <= tol) || !a.HasLogZ || !b.HasLogZ {
		t.Errorf("%s: differ by %g (log Z %g) > %g", what, d, dz, tol)
	}
}

// TestBeamMatchesInProcess: 8 csv shards on prism (the local runner) and
// infer/shard in process agree to 1e-10 (mean, covariance, log Z).
func TestBeamMatchesInProcess(t *testing.T) {
	dir := t.TempDir()
	m := writeShards(t, dir, 800, 8, 1)
	want, _ := inProcess(t, m, dir)
	got := runBeam(t, m, dir, 0)
	if got.Iterations != want.Iterations {
		t.Errorf("beam took %d iterations, in process %d", got.Iterations, want.Iterations)
	}
	compare(t, "beam vs in process, 8 shards", got, want, 1e-10)
}

// TestBeamOneShardIsEP: one shard on prism equals fg's ordinary EP
// (infer/ep on the same sites, to 1e-10).
func TestBeamOneShardIsEP(t *testing.T) {
	dir := t.TempDir()
	m := writeShards(t, dir, 300, 1, 2)
	_, sites := inProcess(t, m, dir)
	sb, _ := m.Compile(nil)
	full, err := ep.Run(context.Background(), &ep.Problem{Mean: sb.Mean, Cov: sb.Cov, Sites: sites}, sb.Settings.Local)
	if err != nil || full.Status != infer.Converged {
		t.Fatal(err)
	}
	fc, _ := full.Cov()
	got := runBeam(t, m, dir, 0)
	compare(t, "beam one shard vs ep", got, &shard.Result{Mean: full.Mean, Cov: fc, LogZ: full.LogZ, HasLogZ: true}, 1e-10)
}

// TestBeamRetry: shard 3's bundle fails on its first attempt in the third
// iteration (prism fails the job rather than retrying the bundle); the
// driver resubmits the iteration with the same side input, and since site
// updates are replacements the result equals the undisturbed run's.
func TestBeamRetry(t *testing.T) {
	dir := t.TempDir()
	m := writeShards(t, dir, 400, 8, 3)
	clean := runBeam(t, m, dir, 0)
	var mu sync.Mutex
	calls, failed := 0, false
	failHook = func(p string) error {
		mu.Lock()
		defer mu.Unlock()
		if !strings.HasSuffix(p, "part-003.csv") {
			return nil
		}
		calls++
		if calls == 3 && !failed {
			failed = true
			return errors.New("injected failure")
		}
		return nil
	}
	defer func() { failHook = nil }()
	got := runBeam(t, m, dir, 1)
	if !failed {
		t.Fatal("the failure was not injected")
	}
	compare(t, "retried vs clean", got, clean, 1e-12)
	if got.Iterations != clean.Iterations {
		t.Errorf("%d iterations after a retry, %d clean", got.Iterations, clean.Iterations)
	}
}

// TestBeamDataErrorNotRetried: shard 2 has a malformed cell on its line 5.
// The job fails in its first iteration with the error in the user's terms
// (the shard's path and line, no name of fg-beam's in-memory file, no
// pipeline dump), and the driver does not resubmit it though retries are
// allowed: the shard is read once.
func TestBeamDataErrorNotRetried(t *testing.T) {
	dir := t.TempDir()
	m := writeShards(t, dir, 80, 4, 4)
	bad := filepath.Join(dir, "part-002.csv")
	data, _ := os.ReadFile(bad)
	lines := strings.Split(string(data), "\n")
	lines[4] = "0.5,oops,1,1"
	if err := os.WriteFile(bad, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	reads := 0
	failHook = func(p string) error {
		mu.Lock()
		defer mu.Unlock()
		if strings.HasSuffix(p, "part-002.csv") {
			reads++
		}
		return nil
	}
	defer func() { failHook = nil }()
	cfg := Config{Model: m, Shards: filepath.Join(dir, "part-*.csv"), Out: t.TempDir(), Retries: 2, Execute: prism}
	_, _, _, err := Run(context.Background(), cfg)
	var de *DataError
	if !errors.As(err, &de) || !strings.Contains(de.Msg, "model.fg:2:10: error: "+bad+":5:5: csv: non-numeric value") || strings.Contains(de.Msg, "fg-beam-shard") || strings.Contains(de.Msg, "--data") || strings.Contains(de.Msg, "goroutine") {
		t.Fatalf("error %v", err)
	}
	if reads != 1 {
		t.Errorf("the bad shard was read %d times: the job was resubmitted", reads)
	}
	t.Log(de.Msg)
}

// TestBeamUnlistedItem: y reads part-000.csv, which --shards matches, but
// only X is a shard item: every shard's X would be paired with the first
// shard's y. That is an error at y's data statement, before any job.
func TestBeamUnlistedItem(t *testing.T) {
	dir := t.TempDir()
	m := writeShards(t, dir, 80, 2, 5)
	m.Items = []string{"X"}
	cfg := Config{Model: m, Shards: filepath.Join(dir, "part-*.csv"), Out: t.TempDir(), Execute: prism}
	_, _, _, err := Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), m.Path+":3:1: data item `y` reads "+filepath.Join(dir, "part-000.csv")) || !strings.Contains(err.Error(), "--shard_items X,y") {
		t.Fatalf("error %v", err)
	}
}

// TestBeamShardNotRegular: --shards naming a device (/dev/zero, which
// never ends) is refused before anything is read.
func TestBeamShardNotRegular(t *testing.T) {
	dir := t.TempDir()
	m := writeShards(t, dir, 10, 1, 6)
	cfg := Config{Model: m, Shards: "/dev/zero", Out: t.TempDir(), Execute: prism}
	_, _, _, err := Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("error %v", err)
	}
}
