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
// # Imports
//
// It may import engine, recall, importer and internal/enginetest/synth; only
// cmd/mnemo imports it.
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
//
// # Errors
//
// Run returns the engine's and the importer's errors, wrapped with the step
// ("append <thread>: …", "--reuse <dir>: …"); it stops at the first.
package bench
