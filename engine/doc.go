// Package engine is mnemo's public entry point: Open, Append, the read
// methods, LoadContext and, through the packages below it, recall,
// observations, working memory and the run journal.
//
// An agent loop appends each turn as it happens and calls LoadContext before
// every model call. LoadContext composes the memory part of the prompt from
// the recent window, hybrid recall over older turns, observations and working
// memory, and writes a memctx record of exactly what went in, what was left
// out and why, before it returns (DESIGN.md).
//
// # Imports
//
// Owns no table: it orchestrates the packages that do. It may import every
// library package below it (internal/msgstore, internal/store, journal,
// working, observe, recall, recall/uselite, tools, internal/render,
// internal/tokens, internal/models, internal/filekind, and for Postgres
// internal/pgstore and internal/pgrecall) and never server, mcpserver,
// inspector or a command; nothing below it imports it (internal/layout
// checks both).
//
// # Invariants
//
//   - SQLite is the authority; the bleve and chromem-go indexes are derived
//     from it through the outbox written in each Append transaction, and can
//     be rebuilt at any time. On Postgres (Config.Postgres, postgres.go) the
//     database is the authority and holds the indexes: lexical entries are
//     written in the Append transaction, embeddings through the outbox that
//     every engine process on the database drains; the process keeps no
//     state, so several serve the same resources at once.
//   - seq is per thread, starts at 1, strictly increasing and gap free; it is
//     assigned inside the write transaction. Erasure never reuses a seq: an
//     erased seq leaves a tombstone (journal scope "erased"), and Check
//     counts stored plus erased seqs.
//   - Erasure reaches every derived artefact (erase.go): rows, index
//     entries, stored embeddings, observations and their memo entries,
//     memctx previews, working memory (versions written by runs that saw an
//     erased turn are invalidated and the state rebuilt, wmerase.go); once
//     it returns the erased text is in no file of the data directory (on
//     Postgres: in no row; dead tuples stay until VACUUM), and a
//     crash after its commit is completed by Open. Erased owners (deleted threads, an erased resource)
//     leave only opaque tombstones in the records kept (tombstone.go).
//   - A thread belongs to exactly one resource. A resource never reads or
//     writes another's data: a thread's working memory belongs to the
//     thread's resource and can be written only once the thread exists
//     (working.go, wmOwnerOf); DeleteResource erases every state it owns.
//     A run id belongs to one thread (journal.ClaimRun), and tool
//     applications are keyed by run, thread, resource and call.
//   - Thread, run and message ids are global to the data directory, not
//     per resource. A refusal across resources (ErrResourceMismatch,
//     ErrConflict, journal.ErrRunOwned, working.ErrOwnerMismatch) names only
//     what the caller gave, never the other resource, its threads or their
//     content.
//   - An Append stores all of its messages or none.
//   - Every stored text passes through Config.Redactor first (redact.go,
//     redact_json.go): messages, metadata, tool-call arguments, thread
//     titles, memctx queries, working memory, observations. JSON stays
//     valid JSON.
//   - Appending a message whose id is stored with the same content and
//     metadata is a no-op returning the stored seq (its created time may
//     differ); the same id with other content or metadata is ErrConflict.
//     An id one request gives twice with other content or metadata is a
//     *ValidationError (ErrDuplicateID); the same message twice is stored
//     once.
//   - The messages of a Context are always accepted by an OpenAI-style API
//     (INV-PAIR): every assistant tool-call message is immediately followed
//     by the results of exactly its calls; no tool result appears without its
//     call. Tool-call ids may be reused within a thread (agents send call_0
//     every turn): a result answers the nearest call with its id before it,
//     unless another result for that id lies in between (pairing.go). While
//     a dispatch is pending its id is not made again in its thread
//     (ErrDispatchPending, dispatch_pending.go), so its late settlement
//     answers its own call.
//   - No message appears twice in a Context (INV-UNIQ), and its memctx lists
//     exactly the prompt's turns, each dropped turn once and never one that
//     reached the prompt (INV-MEMCTX).
//   - A memctx record is written before LoadContext returns; its recalled list
//     names only turns that reached the prompt. LoadContext on a thread that
//     does not exist yet is a new conversation's first turn when a resource
//     is given (the run is recorded under it), else ErrThreadNotFound with
//     nothing recorded. A deleted thread leaves no run record.
//   - Stored text reaches the prompt only through internal/render (compose.go,
//     docs/prompt.md, "What reaches the prompt"): inside the system part every '<' is
//     a tag of mnemo's (stored text is escaped), in messages only a recalled
//     turn's first characters are a recall marker (marker-shaped text is
//     quoted), observations derived from untrusted sources render untrusted,
//     and dates say their time zone. memctx.render names the rendering, so
//     replay knows when a hash cannot be reproduced.
//   - Lifecycle (lifecycle.go, expire.go, quota.go): a thread's last
//     activity is never lowered, and idleness is counted forward only, so a
//     clock moving backwards expires nothing early; expiry and eviction
//     erase through DeleteThread's path, re-checked inside the erasure
//     transaction; eviction never takes the thread being appended to; the
//     byte counters quotas read match the messages (Check).
//   - The dispatch journal (dispatch.go): an intent (the assistant call and
//     its dispatch) and a settlement (the tool message and the dispatch's
//     result) are each one transaction. A dispatch of unknown outcome is
//     never dropped from a Context: its call, and any other call of its
//     message without a result, gets a synthetic result
//     (Config.UnsettledText, reason "unsettled" in memctx) until it is
//     settled. A call holds at most one dispatch that no erasure removed
//     (another run's BeginDispatch of it is ErrCallDispatched,
//     dispatch_begin.go), so every dispatch can be settled until its call
//     is answered. A settlement after its dispatch was erased (its thread,
//     its call's or its result's message) stores nothing
//     (ErrDispatchErased), nor does beginning it again under its run. A
//     dispatch read from one store (Dispatches) is restored in another as
//     it was (RestoreDispatch, dispatch_restore.go), under the same checks
//     of its messages, run and call, so an export keeps it pending.
//
// # Concurrency
//
// Engine is safe for concurrent use by multiple goroutines. Many goroutines
// may append to one thread at once; their messages get distinct, gap-free
// seqs in commit order. A tool call whose id an unanswered call of the
// thread makes is refused (ErrCallOpen): two loops on one thread whose
// model server reuses call_0 would otherwise get each other's results.
//
// An erasure is fenced per thread and per resource (fence.go): it waits for
// the LoadContext calls and working-memory tool calls of the resources it
// touches (at most Config.EraseWait), cancels the observer runs of the
// threads it touches, and never waits for, nor holds off, work elsewhere.
//
// # Errors
//
// Invalid input returns a *ValidationError (errors.Is ErrInvalidInput) naming
// the message index and field; nothing of the request is stored. Invalid
// recall options given to Search, SearchMessages and SearchPreviews
// (SearchRequest.Options) return an *OptionsError instead, which matches
// ErrInvalidInput too and keeps recall's error and text
// (recall.ErrInvalidOptions with a *recall.OptionError, a
// *recall.FilterError, recall.ErrInvalidQuery for scope thread without a
// thread), where LoadContext's (LoadRequest.Recall) are a *ValidationError
// on "recall.<field>". A nil
// context.Context is ErrNilContext (CloseContext reads it as
// context.Background()), a call after Close ErrClosed. See errors.go for
// the sentinels.
package engine
