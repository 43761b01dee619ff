// Package demodata ships mnemo's sample conversation, used by `mnemo demo`
// and the offline mode of examples/replay, and usable by any program that
// wants a small memory to try calls on: a trip booked with tool calls in
// March, a gardening chat, a work session (with an API key that redaction
// removes) and today's thread, whose questions are answered by turns of the
// earlier sessions.
//
// # Imports
//
// It may import importer (Ingest imports the sample), hence engine; nothing
// below the engine imports it.
//
// # Invariants
//
//   - Conversation is valid mnemo JSONL (package importer's format) with
//     explicit message ids, so ingesting it twice stores nothing new.
//   - The identifiers below name threads and a resource of Conversation.
//
// # Concurrency
//
// Conversation must not be modified. Ingest may run concurrently on
// distinct directories.
//
// # Errors
//
// Ingest returns the error of writing the spooled file, or importer.Import's.
package demodata
