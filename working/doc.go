// Package working is mnemo's working memory: the structured state an agent
// keeps about a conversation, maintained by the model through the
// updateWorkingMemory tool (DESIGN.md, "Working memory").
//
// A Memory is configured once (Config) in one of two modes:
//
//   - schema mode: the state is a JSON object described by a JSON Schema,
//     reflected from a Go type with invopop/jsonschema (Config.SchemaOf) or
//     given raw (Config.Schema). Updates are JSON Merge Patches (RFC 7396,
//     evanphx/json-patch/v5): a partial update changes only the fields it
//     names, null deletes a field, arrays are replaced whole, an empty update
//     changes nothing. The merged result is validated against the schema
//     (santhosh-tekuri/jsonschema/v6) before it is stored.
//   - template mode: the state is free markdown starting from
//     Config.Template. An update replaces the document, or edits one exact
//     passage (search/replace).
//
// The state lives under a scope key: "thread:<threadId>" (Scope thread: one
// state per thread) or "resource:<resourceId>" (Scope resource: one state
// shared by all the resource's threads). It is stored in the working_memory
// table with a version number, and every version is kept in
// working_memory_history with its time, run id and tool call id.
//
// ReadOnly (Config.ReadOnly) concerns the model only: the state is rendered
// but no tool is offered. The application and the operator (mnemo wm set) may
// still update it through this package.
//
// A library user gets the engine's Memory from engine.Engine.WorkingMemory
// or OpenWorkingMemory. New and the functions that take a transaction or
// a database (Invalidate, Rebuild, Delete, DeleteOwned, LoadConfig,
// StoredMode) are for mnemo's own packages: the engine hands out neither
// its database nor a transaction on it.
//
// # Imports
//
// Owns the tables working_memory, working_memory_history and working_config,
// and their erasure. It may import internal/store and internal/render; never
// engine, journal or observe.
//
// # Invariants
//
//   - A stored state is always valid: in schema mode a JSON object that the
//     schema accepts (with "required" relaxed where merge semantics apply, see
//     Config.Schema), in template mode at most Config.MaxChars characters.
//   - An update that is refused (invalid JSON, not an object, a schema
//     violation, a search that does not match exactly once, too large)
//     changes nothing; the error names what is wrong.
//   - An update that leaves the content unchanged creates no version.
//   - Versions of a scope are 1, 2, 3… without gaps, except where an
//     erasure removed versions derived from erased turns (Rebuild: the
//     others keep their numbers, rebuilt, and a changed state gets the next
//     number; when none is left the state is cleared to its initial content
//     under the next number). A number names one content for the life of
//     the store: it is never issued again, except after Delete or
//     DeleteOwned, which erase the state with every run that could name
//     one of its versions. Version n+1 is written only over version n (optimistic concurrency: compare-and-swap on the
//     version, then a retry of the whole merge on the newer state), so
//     concurrent updates of different fields never lose one another.
//   - An update carrying a (run id, tool call id) that is already in the
//     history is not applied again: its recorded version is returned. Together
//     with journal.Apply this makes tool handling durable across restarts.
//   - A state is bound to the resource that owns it (Config.OwnerOf): an
//     update resolves the owner inside its write transaction, refuses an
//     Origin.ResourceID that is not the owner (ErrOwnerMismatch) and stores
//     the owner with the state and each version, so a resource's erasure
//     can reach every state it owns.
//   - The caller's values are never aliased: patches are encoded to JSON
//     before use, and State.Value decodes a fresh map on every call.
//
// # Concurrency
//
// Memory is safe for concurrent use by multiple goroutines and by several
// processes sharing the database: the version compare-and-swap runs inside
// one write transaction. On SQLite (internal/store.Open) writers take the
// file's write lock in turn (BEGIN IMMEDIATE); on Postgres
// (pgstore.OpenDB, READ COMMITTED) a writer's UPDATE … WHERE version = n
// waits for a concurrent writer's row lock and then matches no row, and
// the INSERT of a first version waits for the other's and does nothing, so
// of two writers over one version exactly one writes version n+1 and the
// other merges again (ErrConflict once MaxRetries is spent).
//
// # Backends
//
// The statements are written once in SQLite's text and rebound to $n on
// Postgres (store.Bound, store.Dialect); the SQLite path runs the text as
// written. The two that differ: History without a limit (LIMIT -1 on
// SQLite, LIMIT NULL on Postgres) and the key order of an erasure (SQLite's
// BINARY collation; COLLATE "C" on Postgres, whatever the database's
// collation). Functions that take the caller's transaction (Invalidate,
// Rebuild, Delete, DeleteOwned) speak its dialect: a *store.Tx on Postgres.
//
// # Errors
//
// Refusals of an update are the sentinels ErrInvalidPatch,
// ErrSchemaViolation, ErrSearchNotFound, ErrSearchNotUnique, ErrTooLarge,
// ErrWrongMode and ErrModeMismatch (a partial update of a state written in
// the other mode), wrapped with a message naming the field or
// rule; Refused reports whether an error is one of them (the tools package
// turns those into tool results for the model). ErrInvalidKey,
// ErrInvalidSchema and ErrConflict are configuration or contention errors;
// ErrOwnerMismatch (and any error of Config.OwnerOf) refuses a write for a
// resource that does not own the state, naming neither; database errors are
// wrapped with the step that failed.
package working
