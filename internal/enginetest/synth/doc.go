// Package synth generates a deterministic synthetic conversation corpus for
// benchmarks: several resources (users), each with threads of alternating
// user and assistant turns and tool-call groups (an assistant message with
// one or two tool calls followed by their tool results), at any size
// (10k, 100k and 1M messages are the benchmarked ones).
//
// The text is English-like: words are drawn from a list of common English
// words with a Zipf distribution (s = 1.1, close to the ~1 exponent of
// natural-language word frequencies), mixed with per-resource topic words
// (people, projects, places) and rare identifiers (order and ticket
// numbers), so that BM25 has both common and selective terms. Turn lengths
// are log-normal: user turns have a median of about 16 words and assistant
// turns about 45, which is close to the turn lengths of LoCoMo (user ≈ 20
// words) and of agent transcripts (longer assistant answers).
//
// # Imports
//
// It may import engine (it generates engine messages); as a subpackage of
// internal/enginetest it is above the engine's floor, so no package below
// engine imports it (their tests may). mnemo bench uses it too.
//
// # Invariants
//
//   - The corpus is a pure function of Config: the same Config gives the
//     same threads, ids, contents and times, on any machine and in any
//     order of access (each thread has its own random stream, so
//     Corpus.Thread(i) never needs threads 0..i-1).
//   - Exactly Config.Messages messages over exactly Config.Resources
//     resources; every resource has at least one thread.
//   - Every message is accepted by engine.Append: valid ids and roles,
//     every tool call is answered by a tool result right after its assistant
//     message, and no thread starts with a tool result.
//
// # Concurrency
//
// A Corpus is immutable after New and safe for concurrent use.
//
// # Errors
//
// New returns ErrInvalidConfig for a negative or zero size, or for more
// resources than messages.
package synth
