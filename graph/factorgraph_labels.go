package graph

import (
	"slices"
	"sort"
	"strconv"
)

// LabelColumn is the labels of the factors of an Affines (a
// FactorGraph's linear-Gaussian factors or sites), one per factor in the
// same order, stored as stretches so that a plate's labels cost what the
// graph's compact runs cost before: a stretch of labels given as strings
// (a statement's, views of one string: compile's label runs), a stretch
// of labels prefix + index + suffix made on demand with the indices a
// Column (one rule for consecutive elements: normal(y[3]) in a vector
// plate, normal(x[3]) on consecutive elements of a latent), or a stretch
// without labels of its own (the factor's tag makes it: the elements of a
// whole-latent prior, hand-built factors).
type LabelColumn struct {
	runs []labelStretch
	n    int
}

// labelStretch is labels at, at+1, …: strs, or prefix, index and suffix when
// indexed, or none (tagged) when neither.
type labelStretch struct {
	at               int
	n                int
	strs             []string
	indexed          bool
	prefix, suffix   string
	index            Column[int]
	tagged, explicit bool
}

// Len is the number of labels.
func (c *LabelColumn) Len() int { return c.n }

// last is the last stretch, or nil.
func (c *LabelColumn) last() *labelStretch {
	if len(c.runs) == 0 {
		return nil
	}
	return &c.runs[len(c.runs)-1]
}

// Add appends the label s.
func (c *LabelColumn) Add(s string) {
	if r := c.last(); r == nil || !r.explicit {
		c.runs = append(c.runs, labelStretch{at: c.n, explicit: true})
	}
	r := c.last()
	r.strs = append(r.strs, s)
	r.n++
	c.n++
}

// AddIndexed appends the label prefix + index + suffix (made on demand).
func (c *LabelColumn) AddIndexed(prefix string, index int, suffix string) {
	if r := c.last(); r == nil || !r.indexed || r.prefix != prefix || r.suffix != suffix {
		c.runs = append(c.runs, labelStretch{at: c.n, indexed: true, prefix: prefix, suffix: suffix})
	}
	r := c.last()
	r.index.Add(index)
	r.n++
	c.n++
}

// AddTagged appends n factors whose labels their tags make.
func (c *LabelColumn) AddTagged(n int) {
	if n == 0 {
		return
	}
	if r := c.last(); r == nil || !r.tagged {
		c.runs = append(c.runs, labelStretch{at: c.n, tagged: true})
	}
	c.last().n += n
	c.n += n
}

// run is the stretch holding label k.
func (c *LabelColumn) run(k int) *labelStretch {
	if k < 0 || k >= c.n {
		panic("graph: label index out of range")
	}
	i := sort.Search(len(c.runs), func(i int) bool { return c.runs[i].at > k }) - 1
	return &c.runs[i]
}

// At is label k, "" when its tag makes it.
func (c *LabelColumn) At(k int) string {
	r := c.run(k)
	switch {
	case r.explicit:
		return r.strs[k-r.at]
	case r.indexed:
		b := make([]byte, 0, len(r.prefix)+len(r.suffix)+20)
		b = append(b, r.prefix...)
		b = strconv.AppendInt(b, int64(r.index.At(k-r.at)), 10)
		return string(append(b, r.suffix...))
	}
	return ""
}

// AppendFrom appends label k of src in its form (indexed stays indexed).
func (c *LabelColumn) AppendFrom(src *LabelColumn, k int) {
	r := src.run(k)
	switch {
	case r.explicit:
		c.Add(r.strs[k-r.at])
	case r.indexed:
		c.AddIndexed(r.prefix, r.index.At(k-r.at), r.suffix)
	default:
		c.AddTagged(1)
	}
}

// Move appends the labels of src, which it empties (its stretches move,
// not copied).
func (c *LabelColumn) Move(src *LabelColumn) {
	for i := range src.runs {
		r := src.runs[i]
		if r.tagged {
			c.AddTagged(r.n)
			continue
		}
		r.at, r.strs = c.n, slices.Clip(r.strs)
		c.runs = append(c.runs, r)
		c.n += r.n
	}
	*src = LabelColumn{}
}

// Bytes is the memory the labels' stretches hold (their strings' headers
// and index columns; the strings' bytes are shared with the statements'
// label runs).
func (c *LabelColumn) Bytes() int64 {
	var n int64
	for i := range c.runs {
		r := &c.runs[i]
		n += int64(cap(r.strs))*16 + r.index.Bytes() + 96
	}
	return n
}
