package fgraph

// CVGaussBig is, for the tests of package fgraph_test, cvGauss(T, q, r)'s
// readings and the 256-bit Kalman smoother's means, variances and log p(y)
// of its chain (testkit.CVChain.KalmanBig).
func CVGaussBig(T int, q, r float64) (y, mean, vr []float64, logp float64) {
	_, m := cvGauss(T, q, r)
	mean, vr, logp = m.KalmanBig()
	return m.Y, mean, vr, logp
}
