// Package evalrun is the harness of `mnemo eval`: it ingests a LoCoMo or
// LongMemEval file into an engine, asks every question of the set
// (cmd/mnemo/internal/evalset) with recall in each mode, and scores the
// ranked hits: recall_any@k, recall_all@k and NDCG@k at turn level (and,
// for LongMemEval, session level), per category and overall, with the
// search latency on loaded resources. Reports print as tables or as JSON
// (their field names are the JSON format).
//
// # Imports
//
// It may import engine, recall, importer and cmd/mnemo/internal/evalset;
// only cmd/mnemo imports it.
//
// # Invariants
//
//   - The file is ingested once; every mode searches the same engine.
//   - Latency is measured on a loaded resource: each question's resource
//     is searched once ("warm up") before the timed search.
//   - recall_any and recall_all count the top-k hits and their range
//     neighbours; NDCG counts the ranked hits alone.
//
// # Concurrency
//
// Run asks the questions one at a time; it may run concurrently with
// another Run on another directory.
//
// # Errors
//
// Run returns the engine's and the importer's errors, and a search's
// wrapped with the question ("question <id>: …"); ctx's error when it is
// cancelled between questions.
package evalrun
