// Package filekind names the kind of a file that is not a regular one,
// in the words of mnemo's messages: "mnemo.db is a pipe" (engine.Open),
// "the pipe /tmp/f is named twice" (mnemo ingest). It also opens a lock
// file (OpenLock: the engine's LOCK, mnemo serve's serve.lock), refusing
// one that is a symbolic link or not a regular file in those words.
//
// # Invariants
//
// OpenLock never opens through a symbolic link and never returns a file
// that is not regular: it writes nothing but may create the file.
//
// # Imports
//
// Owns no data. It imports nothing of mnemo, so the engine and the CLI
// can both use it.
//
// # Errors
//
// OpenLock's refusals are a *NotRegularError; other failures are the
// open's *fs.PathError.
//
// # Concurrency
//
// Of is pure; both are safe for concurrent use.
package filekind
