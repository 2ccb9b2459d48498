package compile_test

// The engines register with compile when infer/run is linked (every
// program that runs models links it); compile's tests link it here. An
// external test package may import infer/run, which imports compile.
import _ "github.com/fg-infer/fg/infer/run"
