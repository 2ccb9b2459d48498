package infer

// MaxKeptDraws bounds the numbers a sampler keeps for its diagnostics:
// chains × samples × scalar quantities (2²⁵ float64s, 256 MiB). The
// compiler refuses an infer line that would exceed it when the model's size
// is known, and the samplers check it again before allocating.
const MaxKeptDraws = 1 << 25
