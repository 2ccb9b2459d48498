// Package pipeline runs fg's sharded expectation propagation (package
// infer/shard) on Apache Beam, one Beam job per EP iteration. The driver
// (Run, driver.go) holds the loop: it is infer/shard's Iterate with a Step
// that builds and executes one pipeline — the shards' csv files read through
// fileio, the global posterior and every shard's site as a singleton side
// input, a ParDo running each shard's local EP against its cavity
// (shard.LocalUpdate, dofn.go), and a combine summing the new sites — then
// reads the updates back. The model is compiled on each worker for its shard
// (Model.Compile), so workers need the model source, not the data.
//
// Natural parameters cross the wire as JSON (wire.go), which round-trips
// every float64 exactly: a Beam run and the in-process shard.Run see the
// same numbers bit for bit. A failed job is resubmitted up to Config.Retries
// times with the same side input, except for data errors (a bad shard, a
// model that does not compile on it), which workers mark so that the driver
// stops at once with the user's file and line (errors.go).
package pipeline
