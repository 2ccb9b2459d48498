package run

import "testing"

// TestDefaultScheduleReported: a Gaussian block whose infer line names no
// schedule reports the one that ran (sequential, the cheaper at every size
// measured) in the result's options; a named schedule is reported as
// written.
func TestDefaultScheduleReported(t *testing.T) {
	rs := runSrc(t, `
data x: real[5] = [-1, -0.5, 0, 0.5, 1]
latent f: real[5] ~ gp(se(1, 1), x)
for i in 0..5 { 1 ~ probit(f[i]) }
infer ep
infer ep { schedule = parallel }
`)
	if got := rs["ep"].Options["schedule"]; got != "sequential" {
		t.Errorf("default: schedule option %q, want sequential", got)
	}
	if got := rs["ep_2"].Options["schedule"]; got != "parallel" {
		t.Errorf("named: schedule option %q, want parallel", got)
	}
}
