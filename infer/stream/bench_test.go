package stream

import (
	"bufio"
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/stdlib"
)

// BenchmarkUpdate is one ADF probit update of an example with 20 non-zeros
// on d = 10⁵ weights (no parsing).
func BenchmarkUpdate(b *testing.B) {
	const d, nnz = 100_000, 20
	e := newEngine(&Problem{PriorMean: make([]float64, d), PriorVar: ones(d), Lik: ep.Probit{}}, &Settings{})
	r := rand.New(rand.NewPCG(1, 2))
	const rows = 1024
	idx := make([][]int32, rows)
	val := make([][]float64, rows)
	for i := range rows {
		for range nnz {
			idx[i] = append(idx[i], int32(r.IntN(d)))
			val[i] = append(val[i], r.NormFloat64())
		}
	}
	b.ResetTimer()
	for i := range b.N {
		k := i % rows
		if err := e.visit(k+1, float64(1-2*(i&1)), idx[k], val[k]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse reads libsvm lines of 20 non-zeros (stream.Generate's
// format: 17-digit values) from memory.
func BenchmarkParse(b *testing.B) {
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	if err := Generate(bw, 10_000, 100_000, 20, 1, 1); err != nil {
		b.Fatal(err)
	}
	bw.Flush()
	src := buf.Bytes()
	b.SetBytes(int64(len(src)) / 10_000)
	b.ResetTimer()
	var rd *stdlib.LibSVMReader
	for i := range b.N {
		if i%10_000 == 0 {
			rd = stdlib.NewLibSVMReader(bytes.NewReader(src), "bench")
		}
		if _, err := rd.Next(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkADFFile is one ADF pass over a libsvm file of 10⁵ examples with
// about 20 non-zeros over 10⁵ features (parse + update); ns/op is per
// example.
func BenchmarkADFFile(b *testing.B) {
	const n, d = 100_000, 100_000
	path := writeSynthetic(b, n, d, 20, 1)
	p := &Problem{PriorMean: make([]float64, d), PriorVar: ones(d), Lik: ep.Probit{}, Train: LibSVMFile{Path: path}}
	b.ResetTimer()
	for done := 0; done < b.N; done += n {
		if _, err := Run(context.Background(), p, &Settings{}); err != nil {
			b.Fatal(err)
		}
	}
}
