package ep

// CheckObservation reports whether y is a legal observation of l (a class
// label ±1 for probit and step, a finite value for gaussian) and whether l's
// own parameters are in range. Engines that call Likelihood.Tilted outside
// Run (infer/fgraph) validate their sites with it.
func CheckObservation(l Likelihood, y float64) error {
	return l.validY(y)
}
