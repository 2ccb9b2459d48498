package bp

import (
	"runtime"
	"sync"
)

// parallelMinEdges is the smallest parallel pass worth splitting over
// goroutines.
const parallelMinEdges = 4096

// calcAll computes the new messages of the edges seq into nmsg (the first
// half of a parallel pass). In plain BP every new message depends only on
// the current messages msg, so the edges are split into GOMAXPROCS
// contiguous chunks computed concurrently, each by a shallow copy of the
// engine with its own scratch buffers; the numbers are those of one
// goroutine. Fractional and relaxed BP read (and relaxed BP writes) the
// factor's own newest message inside calc, which makes the result depend on
// the order: they stay on one goroutine.
func (en *engine) calcAll(seq []int32) {
	p := en.p
	workers := min(runtime.GOMAXPROCS(0), len(seq)/parallelMinEdges)
	if workers < 2 || en.relax || en.c != 1 {
		for _, e := range seq {
			en.calc(e, p.msgOf(en.nmsg, e))
		}
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		chunk := seq[w*len(seq)/workers : (w+1)*len(seq)/workers]
		wk := *en
		wk.cav, wk.coff, wk.out, wk.tilt = nil, nil, nil, nil
		wg.Go(func() {
			for _, e := range chunk {
				wk.calc(e, p.msgOf(wk.nmsg, e))
			}
		})
	}
	wg.Wait()
}
