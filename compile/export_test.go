package compile

// SetLossFastPath turns the loss.Batch fast path of expFactor on or off for
// the external tests (compile_test), returning the previous setting.
func SetLossFastPath(on bool) bool {
	old := lossFastPath
	lossFastPath = on
	return old
}
