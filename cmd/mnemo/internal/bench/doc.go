// Package bench is the harness of `mnemo bench`: it fills a data directory
// with a deterministic synthetic corpus (internal/enginetest/synth) or an
// imported file and measures, in this order, ingest (both indexes caught
// up), single-message appends into the filled engine, a cold open, the
// first use of each queried resource, warm LoadContext with recall on,
// Search per channel, optionally a sweep over every resource, and the
// vector index's exactness against the exact scan. The figures are a
// Report, printed as a table or as JSON (its field names are the JSON
// format, which --baseline reads back).
//
// On Postgres (Options.Store and Scratch, mnemo bench --db) the run fills
// a new schema of the database (NewScratch) and its size is the disk
// figure. Scale measures throughput with several engine processes against
// one database: for each process count, worker processes (mnemo bench
// --worker, RunWorker; the caller's Starter runs them) open engines, report
// Ready, start together on a line from the parent, ingest their share of the
// corpus or run their LoadContext calls, and print a WorkerResult; the
// parent aggregates them into a ScalePoint (rates over the wall time from
// the common start to the last result; latency percentiles over every
// call).
//
// # Imports
//
// It may import engine, recall, importer, internal/enginetest/synth and
// pgx (the scratch schema); only cmd/mnemo imports it.
//
// # Invariants
//
//   - The embedder is hash-384 whatever is installed (issue 8's
//     configuration), so runs compare across machines.
//   - The queries are chosen before the timed phases, from Options.Seed:
//     the same Options give the same queries.
//   - Every LoadContext has a new run id, as an agent's turns do.
//
// # Concurrency
//
// Run uses the process: it reads and resets the process's peak RSS and
// measures its CPU time, so only one Run may be in flight per process.
// Scale's workers are processes; the schema of each process count is theirs
// alone.
//
// # Errors
//
// Run returns the engine's and the importer's errors, wrapped with the step
// ("append <thread>: …", "--reuse <dir>: …"); it stops at the first.
package bench
