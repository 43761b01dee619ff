// Package journal is mnemo's run journal over the shared database:
// memoized steps keyed by sequence, durable tool applications, the memctx
// record of every run (DESIGN.md, "Journal, memoization and replay") and the
// dispatch journal of side-effecting tool calls (dispatch.go). Package
// observe checks, lists and forgets its memo entries in its own
// transactions through the functions of memo.go (HasMemo, MemoKeys, Memos,
// ForgetMemo, ForgetMemos), never with SQL of its own.
//
// A library user reaches the engine's journal through engine.Engine.Journal
// (Step, Apply, MemCtx, ListRuns …). The functions that take a transaction
// or a database (a store.Conn, Querier or *sql.DB) are for mnemo's own
// packages: the engine hands out neither its database nor a transaction
// on it.
//
// It runs on SQLite (internal/store.Open) and on Postgres
// (internal/pgstore.OpenDB) alike: statements are written in SQLite's text
// and rebound to the database's dialect (store.Dialect; the SQLite path runs
// the text as written). Functions that take the caller's transaction take a
// store.Conn: on Postgres pass a *store.Tx (store.Begin), which carries the
// dialect; a bare *sql.Tx is taken for SQLite. The tests run every
// behaviour on both backends (backend_test.go).
//
// # Imports
//
// Owns the tables journal (memoized steps, tool applications, memctx
// records, markers, tombstones), runs and dispatches, and their erasure. It
// may import internal/store only (never engine or internal/msgstore).
//
// The dispatch journal lives here rather than in a package of its own
// because it is a journal of side effects keyed by the run, as tool
// applications are: a dispatch is begun under the run's claim (runs, owned
// here), and erasure removes it with the run's other records. Its read joins
// messages (owned by internal/msgstore) read-only, for the call's seq and
// arguments, in the same statement as before the split.
//
// # Invariants
//
//   - A step runs at most once per (scope, key); called again it returns the
//     recorded output byte for byte and does not run.
//   - A failed step records nothing, so it runs again next time.
//   - A tool call is applied at most once per ToolKey (run id, thread,
//     resource, tool call id); another owner's call with the same ids is
//     another application and never sees the first one's result. With
//     ApplyInput the call's input digest is recorded too: another input under
//     the same key (a reused tool call id) is ErrCallReused, never the
//     recorded result.
//   - A run id belongs to the one thread (and resource) that first claimed
//     it (ClaimRun, PutMemCtx); another thread's use is ErrRunOwned
//     (ErrRunErased, which matches it, once that thread was erased).
//   - A memctx record is written once per run id; replacing it is explicit.
//   - Records are never modified in place, only deleted by retention or
//     scrubbed, entombed or deleted by erasure, which runs inside the
//     erasing caller's transaction (erase.go, entomb.go: the caller says
//     what is erased and holds the tombstone key; the journal rewrites its
//     own rows). A dispatch is the one exception: begun once per (run, call
//     id), then settled (its result recorded) once.
//   - A dispatch goes with its call's or its result's message, and with its
//     thread (DeleteDispatches, DeleteThreadDispatches); a result is its
//     settlement's message or, for a dispatch never settled, the tool
//     message that answered its call (AnsweredBy, DeleteDispatch). One
//     that goes while its thread is kept leaves a tombstone keyed by a hash
//     of its run and call ids, with no text of it (ScopeDispatchErased,
//     dispatch_erased.go), which goes with the thread.
//
// # Concurrency
//
// Journal is safe for concurrent use. Concurrent callers of one key inside a
// process share one execution. Across processes (or pools) every caller gets
// the first committed record back (TestRacingConnections). On Postgres a
// tool application's fn also runs once across processes, under a session
// advisory lock on its key held while it runs (keylock.go; released with
// the connection if the process dies; TestApplyOnceAcrossPools); a memoized
// step's fn, and on SQLite any fn, may have run in each racing process.
// The observer's model calls are memoized steps, but package observe
// holds a session lock of its own per thread around them on Postgres
// (store.LockSession, shared with keylock.go), so two processes observing
// one thread call the model once per chunk.
//
// # Errors
//
// ErrNotFound for a missing record, ErrRunExists for a second memctx record
// under one run id, ErrRunOwned for a run id of another thread (its text
// names neither owner; ErrRunErased, which matches it, when the run's
// thread was erased; ErrRunContextErased, which matches both, for a
// run's write whose memctx record holds a turn erased since:
// CheckRunContext), ErrCallReused for a tool call id applied for another
// call; errors from fn are returned unwrapped.
package journal
