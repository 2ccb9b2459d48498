package graph

import (
	"math"
	"math/rand/v2"
	"testing"
)

// columnGens are sequences of values a column holds: rules, repeats,
// observations, signed zeros, NaN and infinities.
func columnGens(rng *rand.Rand) []func(i int) float64 {
	return []func(i int) float64{
		func(i int) float64 { return 1 },
		func(i int) float64 { return float64(i) },
		func(i int) float64 { return 3 - 0.1*float64(i) },
		func(i int) float64 { return rng.NormFloat64() },
		func(i int) float64 { return math.Copysign(0, -1) },
		func(i int) float64 { return 0 },
		func(i int) float64 { return math.NaN() },
		func(i int) float64 { return math.Inf(1 - 2*(i%2)) },
		func(i int) float64 { return float64(i % 3) },
	}
}

// TestColumnReadsBack checks that a Column returns exactly the values
// added (bit for bit) for sequences mixing rules, repeats, observations,
// signed zeros, NaN and infinities, and that rule stretches take no
// memory per value.
func TestColumnReadsBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gens := columnGens(rng)
	for trial := range 3000 {
		var c Column[float64]
		var want []float64
		for range 1 + rng.IntN(8) {
			g, n := gens[rng.IntN(len(gens))], rng.IntN(40)
			if rng.IntN(4) == 0 {
				v := g(0)
				c.AddN(v, n)
				for range n {
					want = append(want, v)
				}
				continue
			}
			for i := range n {
				v := g(i)
				c.Add(v)
				want = append(want, v)
			}
		}
		if c.Len() != len(want) {
			t.Fatalf("trial %d: Len %d, want %d", trial, c.Len(), len(want))
		}
		for i, w := range want {
			if got := c.At(i); math.Float64bits(got) != math.Float64bits(w) && !(math.IsNaN(got) && math.IsNaN(w)) {
				t.Fatalf("trial %d: At(%d) = %v, want %v", trial, i, got, w)
			}
		}
	}
	var ints Column[int]
	for i := range 1000 {
		ints.Add(i / 2) // not a rule: values, then streaks
	}
	for i := range 1000 {
		if ints.At(i) != i/2 {
			t.Fatalf("At(%d) = %d", i, ints.At(i))
		}
	}
}

// TestColumnRulesTakeNoMemory checks the memory of a chain's columns:
// a prior then 10⁶ conditionals (variance 10 then 1s, variables t and
// t−1) and observations (8 bytes each).
func TestColumnRulesTakeNoMemory(t *testing.T) {
	const n = 1_000_000
	var v, slot0, slot1, y Column[float64]
	rng := rand.New(rand.NewPCG(3, 4))
	v.Add(10)
	slot1.Add(-1)
	for k := 1; k <= n; k++ {
		v.Add(1)
		slot0.Add(float64(k))
		slot1.Add(float64(k - 1))
		y.Add(rng.NormFloat64())
	}
	for _, c := range []*Column[float64]{&v, &slot0, &slot1} {
		if b := c.Bytes(); b > 1024 {
			t.Errorf("a rule column holds %d bytes", b)
		}
	}
	if b := y.Bytes(); b > 8*n*5/4+1024 {
		t.Errorf("observations hold %d bytes, want ≤ %d", b, 8*n*5/4+1024)
	}
	if v.At(0) != 10 || v.At(n) != 1 || slot1.At(0) != -1 || slot1.At(n) != n-1 {
		t.Error("wrong values")
	}
}

// TestColumnSum checks Sum against the sum of the values read back.
func TestColumnSum(t *testing.T) {
	var c Column[int32]
	want := int32(0)
	add := func(v int32) { c.Add(v); want += v }
	add(1)
	for range 100 {
		add(2)
	}
	for k := range int32(50) {
		add(k * k % 7)
	}
	for k := range int32(40) {
		add(3 + 2*k)
	}
	if got := c.Sum(); got != want {
		t.Errorf("Sum = %d, want %d", got, want)
	}
	var vals []int32
	for i := range c.Len() {
		vals = append(vals, c.At(i))
	}
	c.Shift(5)
	c.Add(7)
	for i, v := range vals {
		if c.At(i) != v+5 {
			t.Fatalf("after Shift(5), At(%d) = %d, want %d", i, c.At(i), v+5)
		}
	}
	if c.At(len(vals)) != 7 || c.Sum() != want+5*int32(len(vals))+7 {
		t.Errorf("after Shift and Add: At = %d, Sum = %d", c.At(len(vals)), c.Sum())
	}
}

// TestColumnRangesReadBack checks AppendTo and AppendRange against At on
// random columns and ranges (bit for bit, signed zeros, NaN and
// infinities included), and that a column extended by AppendRange goes on
// taking values with Add.
func TestColumnRangesReadBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	gens := columnGens(rng)
	fill := func(c *Column[float64]) {
		for range 1 + rng.IntN(6) {
			g, n := gens[rng.IntN(len(gens))], rng.IntN(40)
			for i := range n {
				c.Add(g(i))
			}
		}
	}
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
	}
	for trial := range 3000 {
		var src, dst Column[float64]
		fill(&src)
		fill(&dst)
		n0 := dst.Len()
		from := rng.IntN(src.Len() + 1)
		to := from + rng.IntN(src.Len()-from+1)
		got := src.AppendTo([]float64{7}, from, to)
		if len(got) != 1+to-from || got[0] != 7 {
			t.Fatalf("trial %d: AppendTo(%d, %d) gave %d values", trial, from, to, len(got)-1)
		}
		for i := from; i < to; i++ {
			if !same(got[1+i-from], src.At(i)) {
				t.Fatalf("trial %d: AppendTo value %d = %v, want %v", trial, i, got[1+i-from], src.At(i))
			}
		}
		dst.AppendRange(&src, from, to)
		dst.Add(2.5)
		dst.Add(3.5)
		if dst.Len() != n0+to-from+2 {
			t.Fatalf("trial %d: Len %d after AppendRange, want %d", trial, dst.Len(), n0+to-from+2)
		}
		for i := from; i < to; i++ {
			if !same(dst.At(n0+i-from), src.At(i)) {
				t.Fatalf("trial %d: AppendRange value %d = %v, want %v", trial, i, dst.At(n0+i-from), src.At(i))
			}
		}
		if dst.At(dst.Len()-2) != 2.5 || dst.At(dst.Len()-1) != 3.5 {
			t.Fatalf("trial %d: values added after AppendRange read back wrong", trial)
		}
	}
	var ints, out Column[int]
	for i := range 1000 {
		ints.Add(i / 2)
	}
	out.AppendRange(&ints, 17, 900)
	for i := 17; i < 900; i++ {
		if out.At(i-17) != i/2 {
			t.Fatalf("ints: At(%d) = %d, want %d", i-17, out.At(i-17), i/2)
		}
	}
}

// TestAppendRangeKeepsRules checks that a chain's columns appended whole
// keep their rules: no memory per value.
func TestAppendRangeKeepsRules(t *testing.T) {
	var src, dst Column[float64]
	for i := range 100000 {
		src.Add(float64(i) * 0.5)
	}
	dst.AppendRange(&src, 0, src.Len())
	if b := dst.Bytes(); b > 1024 {
		t.Errorf("a rule of 10⁵ values appended takes %d bytes", b)
	}
}

// TestColumnMap checks Map against f applied to each value read back (bit
// for bit), for negation and 0 − v on columns mixing rules, signed zeros
// and explicit values, and that a constant stretch stays one number.
func TestColumnMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	gens := append(columnGens(rng), func(i int) float64 { return float64(i) - 5 })
	fs := []func(float64) float64{func(v float64) float64 { return -v }, func(v float64) float64 { return 0 - v }}
	for trial := range 2000 {
		var c Column[float64]
		for range 1 + rng.IntN(6) {
			g, n := gens[rng.IntN(len(gens))], rng.IntN(40)
			for i := range n {
				c.Add(g(i))
			}
		}
		f := fs[trial%2]
		want := c.AppendTo(nil, 0, c.Len())
		c.Map(f)
		if c.Len() != len(want) {
			t.Fatalf("trial %d: Len %d, want %d", trial, c.Len(), len(want))
		}
		for i, w := range want {
			if got := c.At(i); math.Float64bits(got) != math.Float64bits(f(w)) {
				t.Fatalf("trial %d: value %d = %v, want %v", trial, i, got, f(w))
			}
		}
		c.Add(7)
		if c.At(c.Len()-1) != 7 {
			t.Fatalf("trial %d: a value added after Map reads back %v", trial, c.At(c.Len()-1))
		}
	}
	var k Column[float64]
	k.AddN(2, 1_000_000)
	k.Map(func(v float64) float64 { return -v })
	if k.Bytes() > 256 || k.At(999_999) != -2 {
		t.Errorf("a constant column mapped: %d bytes, last value %v", k.Bytes(), k.At(999_999))
	}
}
