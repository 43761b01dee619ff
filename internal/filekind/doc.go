// Package filekind names the kind of a file that is not a regular one,
// in the words of mnemo's messages: "mnemo.db is a pipe" (engine.Open),
// "the pipe /tmp/f is named twice" (mnemo ingest).
//
// # Imports
//
// Owns no data. It imports nothing of mnemo, so the engine and the CLI
// can both use it.
//
// # Concurrency
//
// Of is pure and safe for concurrent use.
package filekind
