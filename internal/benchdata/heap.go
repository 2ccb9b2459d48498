package benchdata

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// PeakHeap runs f and returns the largest heap in use while it ran, above
// the heap in use (after a collection) before it: live objects, garbage not
// yet collected and free space in in-use spans, i.e. what the process holds
// of the heap, sampled every millisecond (large allocations are seen as
// they happen, so the peak of a run dominated by a few large matrices is
// exact to within the garbage made in a millisecond).
func PeakHeap(f func()) uint64 {
	runtime.GC()
	base := heapInUse(newHeapSamples())
	var peak atomic.Uint64
	peak.Store(base)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		s := newHeapSamples()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			if v := heapInUse(s); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(stop)
	<-done
	return peak.Load() - base
}

func newHeapSamples() []metrics.Sample {
	return []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
}

func heapInUse(s []metrics.Sample) uint64 {
	metrics.Read(s)
	return s[0].Value.Uint64() + s[1].Value.Uint64()
}
