// Package importer reads conversation files into an engine: mnemo's JSONL
// format and the LoCoMo and LongMemEval benchmark formats
// (../shared/data/README.md describes the two benchmarks). `mnemo ingest`
// is its command-line face.
//
// # The JSONL format
//
// One message per line, a JSON object:
//
//	{"thread", "resource", "title"?, "idle_ttl"?, "id"?, "role", "content", "name"?,
//	 "tool_calls"?, "tool_call_id"?, "metadata"?, "created_at"?}
//
// title is the thread's, stored by the batch that creates the thread and
// ignored for a stored thread (engine.AppendRequest.Title). idle_ttl is
// the thread's own idle lifetime, "never" or a Go duration ("72h0m0s"),
// set once the line's batch is stored (engine.SetIdleTTL, through an
// IdleTTLSetter), on a stored thread too.
// A line {"type": "working_memory", "thread"?, "resource", "mode",
// "content"} is a working-memory state (workingmemory.go), set through
// a WorkingMemoryOpener after the lines before it are stored, and a line
// {"type": "dispatch", "thread", "resource", "run", "call_id", "name",
// "message_id", "state", "result_id"?, "begun_at", "settled_at"?} a
// dispatch of the dispatch journal (dispatch.go), restored through a
// DispatchRestorer after them.
// tool_calls is a list in OpenAI's shape ({"id", "type": "function",
// "function": {"name", "arguments": "<JSON text>"}}), Ollama's (the
// arguments an object) or mnemo's ({"id", "name", "arguments": <JSON>});
// a call's "type" is "function" or none, and its arguments
// are read by the rule of mnemo serve and engine.Append
// (engine.ToolCallArgumentsOf): a string holding an
// object is the object, other text in a string is kept as the model's
// text, none, null, "" or "null" is {}, a list, a number, true/false or
// an object nested past engine.MaxArgumentsDepth is malformed, named as
// the record names the arguments. Ollama's
// "tool_name" of a "tool" line is its name.
// A line may instead be an OpenAI Responses item told by its "type": a
// "message", a "function_call" (a tool call of the
// assistant message of the line before, or a message of its own) or a
// "function_call_output" (a tool message); another type is malformed.
// The members chat APIs write that mnemo has no field for (OpenAI's
// "refusal", "annotations", "audio", …) are accepted and not stored, and Report.Unstored counts
// the lines where one held a value; a refusal, or else an audio answer's
// transcript, is the content when the content is null or empty. The
// content may be a list of parts (OpenAI's and Anthropic's shapes): its
// text parts' texts are the content, the
// parts mnemo has no field for (images, audio, files, thinking) are
// counted as unstored ("content[].image_url"), and a part of another type
// is malformed. Member names are case-sensitive ("Role" is malformed, as in a request body to
// the HTTP API). created_at is RFC 3339 or a whole number
// of Unix milliseconds from 1e11 (1973-03-03T09:46:40Z), as a number or a
// string: a negative one or 0 (a sentinel or an unset timestamp) is
// malformed, and so is a smaller positive one, which is almost surely Unix
// seconds (1700000000 as milliseconds is 1970-01-20); earlier times are
// written in RFC 3339. Consecutive lines of one thread are appended as one batch
// (one engine.Append). A line without an id gets one derived from the
// thread, its position and its bytes, so importing a file twice stores
// nothing new. A line is at most MaxLineBytes.
//
// # Export
//
// Export writes an engine's threads and messages in the JSONL format,
// which Import reads back under the same ids: mnemo's own shape, a
// thread's title on its first line, no seqs (an import numbers a thread
// from 1), and the current working-memory state of each thread and
// resource as a "working_memory" line, and each thread's dispatches
// (engine.Dispatches) as "dispatch" lines after its messages. It reads a
// page of threads, of messages and of dispatches at a time. What it does not carry (working-memory history,
// observations, runs, memctx records) is listed in docs/cli.md, mnemo
// export.
// A NUL (U+0000) an older build stored, which neither store accepts now,
// is written as U+FFFD and each value so changed named
// (ExportOptions.OnNUL, exportnul.go), so the line moves: a value is
// never dropped unsaid.
//
// # Imports
//
// It may import engine (it appends what it parses), working (the
// working-memory states engine opens), journal (for journal.ErrRunOwned,
// which engine.RestoreDispatch returns) and internal/jsonkey
// (a JSONL record naming a key twice is malformed, as a request body is);
// it is above the engine's floor, so no package below engine imports it.
//
// # Invariants
//
//   - Message ids are derived from the file (LoCoMo "<sample>:<dia_id>",
//     LongMemEval "<question>:s<index>:<turn>"), so importing a file twice
//     stores nothing new.
//   - LongMemEval threads are named by position ("<question_id>:s<index>");
//     the original session ids and has_answer flags are never stored, so a
//     retriever cannot see which sessions hold the answer.
//   - Text is imported as written or not at all: a record that is not valid
//     UTF-8, or whose JSON escapes encode half a surrogate pair, is malformed
//     (ErrInvalidText), never stored with U+FFFD in place of the bad bytes.
//   - A record whose id is stored with the same content but other metadata
//     is a conflict (engine.ErrConflict), reported like a malformed record.
//   - A malformed record is reported with its line (JSONL) or JSON path and
//     skipped (a JSONL line that is not JSON also with the column, 1-based
//     bytes, where the parser stopped and the path of the key it had read
//     last; one that is not valid text with the column of the bad byte); with Strict the import stops at the first one, which is then
//     the error (Report.Stopped, not counted in Report.Skipped). What was
//     stored before a strict stop stays stored (each thread batch is atomic).
//   - An engine error that is not a record's (a quota refusing, the
//     database gone) stops the import and is returned; the report says
//     where (Report.Error, Stopped, StoppedThread, NotStored). What was
//     stored stays, and importing the file again stores only the rest.
//   - Export of a store, imported into an empty one and exported again,
//     writes the same bytes (TestExportRoundTrip, on both backends).
//   - A field the engine refused is named as the format's record spells it
//     (RecordError.Field: tool_call_id in JSONL, not the API's toolCallId).
//
// # Concurrency
//
// Import calls Engine.Append from one goroutine; it is safe to run several
// imports on one engine.
//
// # Errors
//
// ErrUnknownFormat when the format cannot be detected; *RecordError for a
// malformed record under Strict; errors from the engine otherwise.
package importer
