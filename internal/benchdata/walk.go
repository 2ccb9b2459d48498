package benchdata

// RandomWalkSource is a random walk of T steps (a param, 1000 unless set)
// observed with noise at every step, written as users write it: a
// conditional per step and a reading per step. It is the model of the
// chain measurements in docs/performance.md (`fg run rw.fg --set T=…`),
// cmd/fg's BenchmarkRunRandomWalk, infer/run's end-to-end benchmark and
// experiments/beforeafter's chain cases.
const RandomWalkSource = `model random_walk
param T = 1000
data y = random_normal(1, T, 0, 3)
latent x: real[T]
x[0] ~ normal(0, 10)
for t in 1..T { x[t] ~ normal(x[t-1], 1) }
for t in 0..T { y[t] ~ normal(x[t], 9) }
infer ep
`
