//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestBadMemoryBudgetEnv: an FG_MEMORY_BUDGET that is not a positive size
// is a usage error naming the variable, not a silent fall back to the
// computed budget.
func TestBadMemoryBudgetEnv(t *testing.T) {
	for _, v := range []string{"lots", "-5", "0", "12X", ""} {
		t.Setenv("FG_MEMORY_BUDGET", v)
		_, errs, code := runFG("check", "testdata/toy.fg")
		if code != exitUsage || !strings.Contains(errs, "FG_MEMORY_BUDGET") || !strings.Contains(errs, "KiB, MiB, GiB") || !strings.Contains(errs, "KB, MB, GB") {
			t.Errorf("FG_MEMORY_BUDGET=%q: exit %d, stderr %q; want exit %d naming the variable and the accepted forms", v, code, errs, exitUsage)
		}
	}
	for _, v := range []string{"2G", "500MB", "500MiB", "1.5G", "3000000000"} {
		t.Setenv("FG_MEMORY_BUDGET", v)
		if _, errs, code := runFG("check", "testdata/toy.fg"); code != exitOK {
			t.Errorf("FG_MEMORY_BUDGET=%s: exit %d, stderr %q", v, code, errs)
		}
	}
}

// TestModelsChargedToBudget: a factor-graph model (a Gaussian chain of
// 2·10⁵ steps: 2·10⁵ variables at 256 bytes, its vector plate's
// conditionals at 128), the branches
// of gated likelihoods (64 × 2000 at 768 bytes) and a libDAI graph (10⁵
// factors and variables at 640 bytes) are charged against the
// memory budget before they are built: under FG_MEMORY_BUDGET=64M all are
// refused with the budget named, at a position (the chain at its plate of
// conditionals, with the count the model has reached there); under 512M
// all compile.
// (The budget is read once per process, so fg runs as a subprocess.)
func TestModelsChargedToBudget(t *testing.T) {
	// A libDAI chain of 10⁵ binary factors over 10⁵ variables (640 bytes each).
	var b strings.Builder
	const n = 100000
	fmt.Fprintf(&b, "%d\n", n)
	for i := 0; i < n-1; i++ {
		fmt.Fprintf(&b, "\n2\n%d %d\n2 2\n4\n0 1\n1 2\n2 2\n3 1\n", i, i+1)
	}
	fmt.Fprintf(&b, "\n1\n%d\n2\n2\n0 1\n1 2\n", n-1)
	chain := filepath.Join(t.TempDir(), "chain.fg")
	if err := os.WriteFile(chain, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "testdata/budget_chain.fg", "--set", "T=200000", "--only", "ep"}, `budget_chain.fg:13:1: error: this plate makes the model a factor graph of at least 200000 factors over 200000 variables .* about 73\.2 MiB through inference at 256 bytes a variable or factor, 128 a factor of a vector plate, more than the memory budget of 64 MiB`},
		{[]string{"check", "testdata/budget_mixture.fg"}, `budget_mixture.fg:\d+:3: error: the gated likelihoods reach \d+ branches .* more than the memory budget of 64 MiB`},
		{[]string{"check", chain}, `chain.fg:1:1: error: the libDAI graph has 100000 factors over 100000 variables: about 122\.1 MiB through bp and exact at 640 bytes each, more than the memory budget of 64 MiB`},
	} {
		for _, budget := range []string{"64M", "512M"} {
			cmd := fgCommand(t, tc.args...)
			cmd.Env = append(cmd.Env, "FG_MEMORY_BUDGET="+budget)
			out, _ := cmd.CombinedOutput()
			code := cmd.ProcessState.ExitCode()
			refused := regexp.MustCompile(tc.want).Match(out)
			if budget == "64M" && (code != exitError || !refused) {
				t.Errorf("fg %s under %s: exit %d, want 1 and /%s/:\n%s", strings.Join(tc.args, " "), budget, code, tc.want, out)
			}
			if budget == "512M" && (code != exitOK || refused) {
				t.Errorf("fg %s under %s: exit %d:\n%.2000s", strings.Join(tc.args, " "), budget, code, out)
			}
		}
	}
}

// TestChainRefusedBeforeItsPeak: a random walk of 10⁶ steps (2·10⁶
// factors over 10⁶ variables, 488 MiB at 256 bytes a variable and 128 a
// factor of its vector plates) under
// FG_MEMORY_BUDGET=300M is refused at its plate of conditionals before
// the process's peak resident memory reaches the budget: the plate is
// charged before its factors are made, not after the model is compiled
// (which peaked at 458 MB). The same walk as one unrolled plate of two
// statements is refused the same way: its first conditional charges the
// plate's 10⁶ − 1 runs left (after x[0] and y[0]: 10⁶ + 1 factors). A
// walk of 9·10⁶ steps, past the unrolled plates' limit of 8388608
// iterations, is bounded by the budget alone: under 3G it is refused by
// it at its plate, before its 3.2 GiB.
func TestChainRefusedBeforeItsPeak(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak resident memory from getrusage is read on Linux")
	}
	unrolled := strings.Replace(strings.Replace(randomWalkFG, "for t in 0..T { y[t] ~ normal(x[t], 9) }\n", "", 1),
		"for t in 1..T { x[t] ~ normal(x[t-1], 1) }", "y[0] ~ normal(x[0], 9)\nfor t in 1..T {\n  x[t] ~ normal(x[t-1], 1)\n  y[t] ~ normal(x[t], 9)\n}", 1)
	for _, tc := range []struct {
		name, src, T, budget string
		limit                int64
		want                 string
	}{
		{"vector", randomWalkFG, "1000000", "300M", 300 << 20, `rw.fg:6:1: error: this plate makes the model a factor graph of at least 1000000 factors over 1000000 variables .* about 366\.2 MiB through inference at 256 bytes a variable or factor, 128 a factor of a vector plate, more than the memory budget of 300 MiB`},
		{"unrolled", unrolled, "1000000", "300M", 300 << 20, `rw.fg:7:1: error: this plate makes the model a factor graph of at least 1000001 factors over 1000000 variables .* about 488\.3 MiB through inference at 256 bytes a variable or factor, 128 a factor of a vector plate, more than the memory budget of 300 MiB`},
		{"past the plate limit", randomWalkFG, "9000000", "3G", 3 << 30, `rw.fg:6:1: error: this plate makes the model a factor graph of at least 9000000 factors over 9000000 variables .* about 3\.2 GiB through inference at 256 bytes a variable or factor, 128 a factor of a vector plate, more than the memory budget of 3 GiB`},
	} {
		path := filepath.Join(t.TempDir(), "rw.fg")
		if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := fgCommand(t, "run", path, "--set", "T="+tc.T)
		cmd.Env = append(cmd.Env, "FG_MEMORY_BUDGET="+tc.budget)
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != exitError || !regexp.MustCompile(tc.want).Match(out) || strings.Count(string(out), "error:") != 1 {
			t.Fatalf("%s: exit %d, want 1 and one error /%s/:\n%.2000s", tc.name, code, tc.want, out)
		}
		peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // kilobytes on Linux
		if peak >= tc.limit {
			t.Errorf("%s: refused at a peak of %d MiB, past the budget of %s", tc.name, peak>>20, tc.budget)
		}
		t.Logf("%s: refused at a peak of %d MiB", tc.name, peak>>20)
	}
}

// TestLatentRefusedBeforeItsPeak: a latent whose elements would cost more
// than the memory budget as the model compiles (64 bytes each: a graph
// variable and its prior) is refused at its type before they are
// allocated — `latent w: real[10⁷]` under FG_MEMORY_BUDGET=200M at a peak
// far below it (it reached 644 MB before the charge), and the latents
// declared before it count.
func TestLatentRefusedBeforeItsPeak(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak resident memory from getrusage is read on Linux")
	}
	const src = "param n = 10000000\nlatent v: real[3] ~ normal(0, 1)\nlatent w: real[n] ~ normal(0, 1)\ninfer ep\n"
	path := filepath.Join(t.TempDir(), "wide.fg")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := fgCommand(t, "check", path)
	cmd.Env = append(cmd.Env, "FG_MEMORY_BUDGET=200M")
	out, _ := cmd.CombinedOutput()
	want := `wide.fg:3:11: error: latent .w. has 10000000 elements: with the 3 elements of the latents before it, about 610\.4 MiB as the model compiles, at 64 bytes each .*more than the memory budget of 200 MiB`
	if code := cmd.ProcessState.ExitCode(); code != exitError || !regexp.MustCompile(want).Match(out) || strings.Count(string(out), "error:") != 1 {
		t.Fatalf("exit %d, want 1 and one error /%s/:\n%.2000s", code, want, out)
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	if peak >= 100<<20 {
		t.Errorf("refused at a peak of %d MiB: the elements were allocated before the charge", peak>>20)
	}
	t.Logf("refused at a peak of %d MiB", peak>>20)
}
