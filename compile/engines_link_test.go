package compile

// The engines of typed factor graphs install their checks in package
// infer's method registry when linked (infer/run links them in every
// program); compile's tests link them here.
import (
	_ "github.com/fg-infer/fg/infer/exact"
	_ "github.com/fg-infer/fg/infer/mp"
)
