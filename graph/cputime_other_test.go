//go:build !unix

package graph

import "time"

// processCPU is unknown here: benchmarks omit their CPU-time metrics.
func processCPU() time.Duration { return 0 }
