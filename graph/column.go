package graph

import (
	"math"
	"sort"
	"unsafe"
)

// Column is a sequence of numbers (one per factor of a run, or per slot of
// a factor) stored by the rules its stretches follow: a stretch whose
// values are base, base+step, base+2·step, … (a constant variance, a
// coefficient 1, the variable t of the t-th step of a chain) is one
// segment of three numbers whatever its length; a stretch that follows no
// rule (observations) is kept as its values. A 10⁶-step chain's
// conditionals then take no memory per step for their variables,
// coefficients and variances, and its observations 8 bytes each.
//
// Values read back are bit-identical to the values added (a rule is
// extended only by a value it reproduces exactly, signed zeros included).
// The zero Column is empty and ready to use.
type Column[T int | int32 | float64] struct {
	segs []colSeg[T]
	vals []T // the values of the explicit segments, in order
	n    int
	// streak counts the values at the end of an explicit segment that
	// follow one rule (step) after the value before them: past
	// streakLen they move into a rule segment of their own.
	streak int
	sstep  T
	// fastAt, fastN, fastBase and fastStep repeat the last segment (its
	// first index and length) when it is a rule that base + step·k
	// reproduces for every k ≥ 0 (finite numbers, base not −0), so that
	// At is a multiply-add there; fastN is 0 otherwise.
	fastAt, fastN      int
	fastBase, fastStep T
}

// colSeg is the stretch of values at, at+1, … up to the next segment's at:
// value i is base + step·(i − at) when off < 0, else vals[off + i − at].
type colSeg[T int | int32 | float64] struct {
	at, off    int
	base, step T
}

// streakLen is the number of values following one rule at the end of an
// explicit stretch that start a rule segment (so that a plate after a
// stretch of observations costs nothing per element again).
const streakLen = 16

// Len is the number of values.
func (c *Column[T]) Len() int { return c.n }

// At is value i (0 ≤ i < Len).
func (c *Column[T]) At(i int) T {
	if k := uint(i - c.fastAt); k < uint(c.fastN) {
		return c.fastBase + T(k)*c.fastStep
	}
	return c.at(i)
}

// at is At off the fast path.
func (c *Column[T]) at(i int) T {
	if uint(i) >= uint(c.n) {
		panic("graph: column index out of range")
	}
	s := &c.segs[len(c.segs)-1]
	if i < s.at {
		s = c.seg(i)
	}
	if s.off >= 0 {
		return c.vals[s.off+i-s.at]
	}
	return ruleAt(s.base, s.step, i-s.at)
}

// sync sets the fast path from the last segment.
func (c *Column[T]) sync() {
	c.fastAt, c.fastN = 0, 0
	if len(c.segs) == 0 {
		return
	}
	s := &c.segs[len(c.segs)-1]
	if s.off >= 0 || !exact(s.base) || !exact(s.step) {
		return
	}
	c.fastAt, c.fastN, c.fastBase, c.fastStep = s.at, c.n-s.at, s.base, s.step
}

// exact reports whether x is a number x + k·0 and x·0 keep exactly: finite
// and not −0.
func exact[T int | int32 | float64](x T) bool {
	if f, ok := any(x).(float64); ok {
		return !math.IsInf(f, 0) && !math.IsNaN(f) && !(f == 0 && math.Signbit(f))
	}
	return true
}

// seg is the segment holding value i, before the last one.
func (c *Column[T]) seg(i int) *colSeg[T] {
	segs := c.segs
	k := sort.Search(len(segs), func(k int) bool { return segs[k].at > i }) - 1
	return &segs[k]
}

// ruleAt is value k of the rule base + step·k (base itself when k or step
// is 0, so that a −0 stays −0).
func ruleAt[T int | int32 | float64](base, step T, k int) T {
	if k == 0 || step == 0 {
		return base
	}
	return base + T(k)*step
}

// Add appends v.
func (c *Column[T]) Add(v T) {
	if k := c.fastN; k > 0 && c.fastBase+T(k)*c.fastStep == v && exact(v) {
		// The rule at the end goes on.
		c.n++
		c.fastN++
		return
	}
	c.add(v)
	c.n++
	c.sync()
}

// add appends v off the fast path (c.n is then incremented).
func (c *Column[T]) add(v T) {
	if len(c.segs) == 0 {
		c.segs = append(c.segs, colSeg[T]{at: 0, off: -1, base: v})
		return
	}
	last := &c.segs[len(c.segs)-1]
	if last.off >= 0 {
		c.addExplicit(v)
		return
	}
	switch l := c.n - last.at; {
	case l == 1:
		if step := v - last.base; same(ruleAt(last.base, step, 1), v) {
			last.step = step
			return
		}
		c.explicit(v) // no exact step (a NaN, an infinity, a rounding)
	case same(ruleAt(last.base, last.step, l), v):
	case l == 2:
		// Two values make a rule of any pair: keep the first alone and
		// start a rule at the second, unless the segment before is short
		// too (values following no rule: keep them as values).
		prev := c.n - 2
		if len(c.segs) > 1 && last.at-c.segs[len(c.segs)-2].at <= 2 || len(c.segs) > 1 && c.segs[len(c.segs)-2].off >= 0 {
			c.explicit(v)
			return
		}
		second := c.At(prev + 1)
		c.segs = append(c.segs, colSeg[T]{at: prev + 1, off: -1, base: second})
		nl := &c.segs[len(c.segs)-1]
		if step := v - second; same(ruleAt(second, step, 1), v) {
			nl.step = step
			return
		}
		c.explicit(v)
	default:
		c.segs = append(c.segs, colSeg[T]{at: c.n, off: -1, base: v})
	}
}

// AddN appends n copies of v (one segment, not n values, past a few).
func (c *Column[T]) AddN(v T, n int) {
	if n < 3 {
		for range n {
			c.Add(v)
		}
		return
	}
	if k := len(c.segs); k > 0 {
		if last := &c.segs[k-1]; last.off < 0 && (c.n-last.at == 1 || last.step == 0) && same(last.base, v) {
			last.step = 0
			c.n += n
			c.sync()
			return
		}
	}
	c.segs = append(c.segs, colSeg[T]{at: c.n, off: -1, base: v})
	c.n += n
	c.streak = 0
	c.sync()
}

// explicit turns the short rule segments at the end (the last one and one
// of at most two values before it) into an explicit segment and appends
// v to it (c.n is incremented by Add).
func (c *Column[T]) explicit(v T) {
	from := len(c.segs) - 1
	if from > 0 && c.segs[from].at-c.segs[from-1].at <= 2 && c.segs[from-1].off < 0 {
		from--
	}
	at := c.segs[from].at
	tail := make([]T, 0, c.n-at+1)
	for i := at; i < c.n; i++ {
		tail = append(tail, c.At(i))
	}
	c.segs = c.segs[:from]
	if len(c.segs) > 0 && c.segs[len(c.segs)-1].off >= 0 {
		// Joins the explicit segment before.
		c.vals = append(c.vals, tail...)
	} else {
		c.segs = append(c.segs, colSeg[T]{at: at, off: len(c.vals)})
		c.vals = append(c.vals, tail...)
	}
	c.streak = 0
	c.addExplicit(v)
}

// addExplicit appends v to the explicit segment at the end, moving the
// last streakLen values into a rule segment when they follow one rule.
func (c *Column[T]) addExplicit(v T) {
	last := &c.segs[len(c.segs)-1]
	k := c.n - last.at // values in the segment
	if k >= 1 {
		p := c.vals[last.off+k-1]
		step := v - p
		switch {
		case !same(ruleAt(p, step, 1), v):
			c.streak = 0
		case c.streak > 0 && same(step, c.sstep):
			c.streak++
		default:
			c.streak, c.sstep = 1, step
		}
	}
	c.vals = append(c.vals, v)
	if c.streak < streakLen || k+1 <= streakLen+1 {
		return
	}
	// The last streakLen+1 values follow base + step·i: a rule segment.
	first := c.n - streakLen // index of the first value of the rule
	base := c.vals[len(c.vals)-streakLen-1]
	for i := 1; i <= streakLen; i++ {
		if !same(ruleAt(base, c.sstep, i), c.vals[len(c.vals)-streakLen-1+i]) {
			return // the steps agree but the products round differently
		}
	}
	c.vals = c.vals[:len(c.vals)-streakLen-1]
	c.segs = append(c.segs, colSeg[T]{at: first, off: -1, base: base, step: c.sstep})
	c.streak = 0
}

// Shift adds d to every value (a rule's base: no pass over its values).
func (c *Column[T]) Shift(d T) {
	for k := range c.segs {
		if s := &c.segs[k]; s.off < 0 {
			s.base += d
		}
	}
	for k := range c.vals {
		c.vals[k] += d
	}
	c.streak = 0
	c.sync()
}

// Sum is the sum of the values (a rule's in closed form: no pass over
// them).
func (c *Column[T]) Sum() T {
	var sum T
	for k := range c.segs {
		s := &c.segs[k]
		n := c.n - s.at
		if k+1 < len(c.segs) {
			n = c.segs[k+1].at - s.at
		}
		if s.off >= 0 {
			for _, v := range c.vals[s.off : s.off+n] {
				sum += v
			}
			continue
		}
		sum += T(n)*s.base + T(n*(n-1)/2)*s.step
	}
	return sum
}

// Bytes is the memory the column holds.
func (c *Column[T]) Bytes() int64 {
	var t T
	var s colSeg[T]
	return int64(cap(c.segs))*int64(unsafe.Sizeof(s)) + int64(cap(c.vals))*int64(unsafe.Sizeof(t))
}

// same reports whether a and b are the same number, bit for bit for
// floating point (a −0 is not a 0; NaN is never the same).
func same[T int | int32 | float64](a, b T) bool {
	if a != b {
		return false
	}
	if x, ok := any(a).(float64); ok && x == 0 {
		return math.Signbit(x) == math.Signbit(any(b).(float64))
	}
	return true
}

// end is the index after segment k's last value.
func (c *Column[T]) end(k int) int {
	if k+1 < len(c.segs) {
		return c.segs[k+1].at
	}
	return c.n
}

// segIndex is the index of the segment holding value i (0 ≤ i < Len).
func (c *Column[T]) segIndex(i int) int {
	segs := c.segs
	return sort.Search(len(segs), func(k int) bool { return segs[k].at > i }) - 1
}

// AppendTo appends values from … to−1 to dst a stretch at a time — a
// rule's values by its multiply-add, explicit values copied — and returns
// it: what At returns for each, bit for bit, without a call per value.
func (c *Column[T]) AppendTo(dst []T, from, to int) []T {
	if from < 0 || to > c.n || from > to {
		panic("graph: column range out of range")
	}
	if from == to {
		return dst
	}
	for k := c.segIndex(from); from < to; k++ {
		s := &c.segs[k]
		end := min(c.end(k), to)
		if s.off >= 0 {
			dst = append(dst, c.vals[s.off+from-s.at:s.off+end-s.at]...)
		} else {
			for i := from; i < end; i++ {
				dst = append(dst, ruleAt(s.base, s.step, i-s.at))
			}
		}
		from = end
	}
	return dst
}

// AppendRange appends values from … to−1 of src a stretch at a time: a
// stretch of explicit values is copied, a rule that starts in the range
// (or whose values do not depend on where it starts: integers, a
// constant) stays one rule; only a rule that the range cuts is added
// value by value. The values read back are src's, bit for bit.
func (c *Column[T]) AppendRange(src *Column[T], from, to int) {
	if from < 0 || to > src.n || from > to {
		panic("graph: column range out of range")
	}
	if from == to {
		return
	}
	for k := src.segIndex(from); from < to; k++ {
		s := &src.segs[k]
		end := min(src.end(k), to)
		switch {
		case s.off >= 0:
			c.appendValues(src.vals[s.off+from-s.at : s.off+end-s.at])
		case from == s.at || s.step == 0 || !isFloat(s.step):
			c.appendRule(ruleAt(s.base, s.step, from-s.at), s.step, end-from)
		default:
			for i := from; i < end; i++ {
				c.Add(ruleAt(s.base, s.step, i-s.at))
			}
		}
		from = end
	}
}

// isFloat reports whether T is float64 (whose rules depend on their base:
// base + step·k is not (base + step·j) + step·(k − j) in floating point).
func isFloat[T int | int32 | float64](x T) bool {
	_, ok := any(x).(float64)
	return ok
}

// appendValues appends vs as explicit values, joining an explicit segment
// at the end.
func (c *Column[T]) appendValues(vs []T) {
	if k := len(c.segs); k == 0 || c.segs[k-1].off < 0 {
		c.segs = append(c.segs, colSeg[T]{at: c.n, off: len(c.vals)})
	}
	c.vals = append(c.vals, vs...)
	c.n += len(vs)
	c.streak = 0
	c.sync()
}

// appendRule appends the n values ruleAt(base, step, k), k = 0 … n−1, as
// one rule segment.
func (c *Column[T]) appendRule(base, step T, n int) {
	if n == 1 {
		step = 0 // a one-value segment's step is set by the next value Add appends
	}
	c.segs = append(c.segs, colSeg[T]{at: c.n, off: -1, base: base, step: step})
	c.n += n
	c.streak = 0
	c.sync()
}

// Map replaces every value v by f(v) a stretch at a time: a constant
// stretch (a rule of step 0) by the constant f(v), explicit values one by
// one, and the values of a rule whose step is not 0 one by one (they
// become explicit: f need not keep a rule).
func (c *Column[T]) Map(f func(T) T) {
	var out Column[T]
	var buf []T
	for k := range c.segs {
		s := &c.segs[k]
		end := c.end(k)
		switch {
		case s.off < 0 && (s.step == 0 || end-s.at == 1):
			out.appendRule(f(s.base), 0, end-s.at)
		default:
			buf = c.AppendTo(buf[:0], s.at, end)
			for i, v := range buf {
				buf[i] = f(v)
			}
			out.appendValues(buf)
		}
	}
	*c = out
}

// Stretch describes the stretch of values holding value i, from i on:
// values i … end−1 are vals[0 … end−i−1] when vals is not nil (a view of
// the column's explicit values: never write it), else the rule
// base + step·k, k = k0 … k0+end−i−1 (base itself when k or step is 0,
// so that a −0 stays −0).
func (c *Column[T]) Stretch(i int) (end int, base, step T, k0 int, vals []T) {
	if uint(i) >= uint(c.n) {
		panic("graph: column index out of range")
	}
	k := c.segIndex(i)
	s := &c.segs[k]
	end = c.end(k)
	if s.off >= 0 {
		return end, 0, 0, 0, c.vals[s.off+i-s.at : s.off+end-s.at : s.off+end-s.at]
	}
	return end, s.base, s.step, i - s.at, nil
}
