//go:build !unix

package infer

// rlimitData and rlimitAS: no resource limits outside Unix.
func rlimitData() (int64, bool) { return 0, false }
func rlimitAS() (int64, bool)   { return 0, false }
