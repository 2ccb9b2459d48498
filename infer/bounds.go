package infer

// MaxKeptDraws bounds the numbers a sampler keeps for its diagnostics:
// chains × samples × scalar quantities (2²⁴ float64s, 128 MiB; a
// two-state variable counts once, its other state being the complement), so
// that a run stays within a few hundred MiB of heap. The
// compiler refuses an infer line that would exceed it when the model's size
// is known, and the samplers check it again before allocating.
const MaxKeptDraws = 1 << 24

// MaxChains bounds the chains of a sampler (each holds its own state and
// random source; more than this many adds nothing to the diagnostics).
const MaxChains = 256
