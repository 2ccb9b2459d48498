package factor

import "testing"

// TestProbEvent: the event of every classifier's probability matches the
// observations its CheckY accepts — y = +1 when it takes spins (±1),
// y = 1 when it takes 0/1 labels.
func TestProbEvent(t *testing.T) {
	n := 0
	for _, k := range All() {
		s, ok := k.(Site)
		cp, isCP := k.(ClassProb)
		if !ok || !isCP {
			continue
		}
		if _, classifier := cp.Prob(0, 1); !classifier {
			continue
		}
		n++
		spins := s.CheckY(1) == nil && s.CheckY(-1) == nil
		bits := s.CheckY(0) == nil && s.CheckY(1) == nil
		want := map[bool]string{true: "y = +1", false: "y = 1"}[spins]
		if spins == bits {
			t.Errorf("%s: CheckY takes spins %v and 0/1 %v", k.Name(), spins, bits)
		}
		if got := ProbEvent(k); got != want {
			t.Errorf("ProbEvent(%s) = %q, want %q", k.Name(), got, want)
		}
	}
	if n < 4 {
		t.Errorf("%d classifiers, want probit, logistic, step and bernoulli_logit at least", n)
	}
}
