package infer

// The numbers a sampler keeps for its diagnostics, chains × samples ×
// scalar quantities (a two-state variable counts once, its other state
// being the complement), are bounded by KeptDrawsLimit, derived from the
// memory budget (budget.go). The compiler refuses an infer line that would
// exceed it when the model's size is known, and the samplers check it
// again before allocating.

// MaxChains bounds the chains of a sampler (each holds its own state and
// random source; more than this many adds nothing to the diagnostics).
const MaxChains = 256
