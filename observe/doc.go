// Package observe is mnemo's observational memory: an observer that distils
// older turns of a thread into observations, and a reflector that condenses
// observations when they pile up (DESIGN.md, "Observational memory").
//
// Both are model calls through the Model interface (OpenAIModel adapts any
// OpenAI-compatible endpoint with go-openai) and both run through
// journal.Step in scope journal.ScopeMemo, keyed by sequence:
//
//	observe|<thread>|observer|<fromSeq>|<toSeq>|<prompt version>|<model>
//	observe|<thread>|reflector|<fromSeq>|<toSeq>|<prompt version>|<model>|<sources digest>
//	observe|<thread>|skipped|<fromSeq>|<toSeq>
//
// so a second call for the same range never reaches the model and returns the
// recorded bytes, also after a restart. The third records a Skip: turns
// the endpoint refused for their content when sent alone, which the
// observer passes over (skip.go); it holds no answer, so no observer call
// replays it. Erasure calls Invalidate in its
// transaction: it invalidates the observations (and reflections) derived from
// the erased turns and deletes the thread's memo entries (keys starting with
// MemoPrefix(thread)), so nothing erased comes back through memoization;
// only the records of skips before the erased seq stay (no text).
//
// Search ranks live observations by BM25 for the opt-in recallObservations
// tool (package tools); Render and Refs produce the system part and the
// memctx references LoadContext uses.
//
// A library user turns the observer on with engine.Config.Observe and runs
// it with engine.Engine.Observe; it lists observations with
// engine.Engine.Observations. New and the functions that take a
// transaction or a database (Invalidate, EntombThread, EntombResource,
// List, Search, Watermark) are for mnemo's own packages: the engine hands
// out neither its database nor a transaction on it.
//
// The observer reads turns through the small Source interface, so the package
// does not depend on the engine; a Source that is also a PageSource (the
// engine's is) is read a page at a time, so planning on a long unobserved
// thread holds a page, the next chunk and two numbers for each of the
// newest max(RecentN, MaxPendingTurns) turns, not the thread. Observations
// live in the observations table of the shared database, which this
// package owns: SQLite (internal/store/schema.go) or Postgres
// (internal/pgstore/schema.go). The
// statements are written once in SQLite's text and rebound to $n on
// Postgres (store.Bound); the SQLite path runs the text as written. What
// differs on Postgres: the untrusted flag is a BOOLEAN (bound and scanned
// as a Go bool on both), List orders ids COLLATE "C" (SQLite's byte order,
// whatever the database's collation), and the writes of a thread's
// observations take a per-thread advisory lock (see Concurrency).
// Invalidate, EntombThread and EntombResource speak the dialect of the
// caller's transaction: a *store.Tx on Postgres.
//
// # Imports
//
// Owns the table observations and its invalidation. It may import journal
// (memoized observer calls; the memo entries it checks, lists and forgets
// in its own transactions go through the journal's HasMemo, MemoKeys,
// Memos, ForgetMemo and ForgetMemos: the journal table is the journal's,
// and no statement here names it), internal/store, internal/render,
// internal/tokens and internal/bm25 (Search's formula, shared with recall);
// never engine, recall or working.
//
// # Invariants
//
//   - Every observation carries {threadId, fromSeq, toSeq}; a reflection also
//     lists its source observation ids, and its range is the union (min..max)
//     of their ranges.
//   - A range never splits a tool-call group: it never ends just before a tool
//     result, so an assistant tool call and its results are observed together.
//   - An observation is data about the conversation: an answer item that
//     restates the observer's (or reflector's) instructions — in any words,
//     judged by how many of its content words come from the prompt rather
//     than from the turns (or observations) it cites (ground.go) — is not
//     stored; an answer that is nothing else fails with ErrEmptyAnswer and is
//     not memoized.
//   - The pending turn is never observed (PendingStart): the user turns that
//     no assistant answer follows yet, and the tool loop working on them, are
//     never sent to the model as observable, whatever RecentN is; ObserveRange
//     refuses a range that reaches into them.
//   - The observed watermark of a thread is the highest toSeq of its
//     non-invalidated observations and reflections. It advances only when an
//     observation is stored, so a model error, a timeout, an empty or a
//     malformed answer leaves it, and every earlier observation, unchanged; the
//     range is tried again on the next call.
//   - Turns the endpoint refused for their content (ErrContentRefused)
//     are isolated by cutting the chunk in two until they are alone (one
//     message or one tool-call group), then skipped: recorded in the
//     journal with their seqs, the reason and the model only, and stored
//     as an observation with empty Content, which moves the watermark
//     past them; they are never sent again unless an erasure in the
//     thread at or before their last seq forgets the skip, or an
//     observer under another model sends them again, once (retrySkips). A skip is made only once the
//     endpoint answered a short harmless probe (one answered within a
//     minute stands for 8 skips at most): when it refuses the probe's
//     content too (ErrAllContentRefused), nothing is skipped. After two
//     skips in a row the thread's next turns are sent one at a time,
//     until one is answered (refusedRuns): a thread whose every turn is
//     refused costs about one call a turn, not a halving each.
//   - The observer's empty list ({"observations": []}: nothing worth
//     keeping in the chunk) is a valid answer, memoized like any other and
//     stored as an observation with empty Content, which moves the
//     watermark past the chunk. List leaves such rows out unless
//     Filter.All, so no prompt, reflection or search sees them.
//   - An observation cites only turns of its own chunk: cited seqs outside
//     it are taken out, an item citing only such seqs is dropped, and an
//     item repeated in one answer is kept once (cite.go); Answer.Dropped
//     counts them.
//   - An item is never cut: one longer than MaxItemChars is stored as
//     several items of at most MaxItemChars, split after redaction at a
//     sentence or word boundary, and the recorded answer counts it
//     (Answer.Split; items.go). The list markers renderItems writes ("- ",
//     UntrustedMark) come off an item's start, so a reflection of a
//     reflection stores the fact, not one more "- ".
//   - Malformed, empty or failed answers are never memoized: validation runs
//     inside the journal step.
//   - An answer computed or read before an erasure in its thread committed
//     is never stored after it: the store transaction, holding the
//     thread's lock, checks that the turns it was distilled from are all
//     still in the Source and that its memo entry, which Invalidate
//     forgets, is still recorded (ErrTurnsErased otherwise). This reaches
//     observers in other processes, which the engine's in-process fence
//     does not.
//   - Sources of a reflection are retired (retired_at set), never deleted; an
//     empty reflection never retires anything.
//   - The conversation is sent to the model as JSON-encoded data inside a
//     delimited block of the user message; the instructions are the system
//     message. Nothing the observer sends is ever written as a message, and an
//     answer item that repeats the observer's instructions is discarded.
//   - No observer or reflector prompt holds a render.Hidden or
//     render.Control character (tag characters, bidirectional controls,
//     DEL, C1, …): each in the stored text a line carries is written as its
//     JSON escape (render.HiddenJSON), the same value made visible, so an
//     instruction only the model reads cannot ride into an observation.
//   - Every observation records the date span of its turns (FromTime, ToTime:
//     their oldest and newest created_at), a reflection the widest span of
//     its sources. The observer reads each turn's time in the location of
//     its CreatedAt (the engine's Source sets the resource's time zone) and
//     the zone's name on the conversation tag, so relative dates resolve
//     against the right day.
//   - Trust follows sources, not the model's citations: an observation whose
//     range holds a tool result (role "tool") is untrusted, every item of it,
//     whichever seqs the observer cited; a reflection built on an untrusted
//     observation or reflection is untrusted, every item of it. Render marks
//     them trust="untrusted".
//
// # Concurrency
//
// Observer is safe for concurrent use. Calls for one thread are serialised by
// a per-thread lock in the process (64 stripes: threads sharing one wait
// for each other too), whose wait ends with the caller's context (the
// holder may wait minutes for a slow model), and on Postgres across
// processes by a session advisory lock on the thread held for the whole
// call, model calls included (lock_across.go, on a connection of its own:
// store.LockSession, the journal's tool-application lock), so two
// processes never call the model for one thread at once: the second waits
// (Options.NoWait: ErrThreadBusy at once; Options.Waiting is told once
// the wait passes WaitNotice) and then finds the thread observed
// (TestRacingObservers: one model call). A lock whose connection
// is lost is released on the server; then the journal's first record wins
// and the observation insert is idempotent per range. On SQLite nothing
// is taken across pools (a data directory has one process). The
// transactions that write a thread's observations (storing an observation
// or a reflection, Invalidate) run one at a time per thread on both
// backends: SQLite's write transactions are serial (BEGIN IMMEDIATE), and
// on Postgres (READ COMMITTED) each first takes a transaction-scoped
// advisory lock on the thread (pg_advisory_xact_lock), so two processes
// never store two observations of one range, and an erasure never misses
// a reflection committed between its read and its writes.
//
// # Errors
//
// Sentinels are in errors.go: ErrModel wraps a failed model call (after
// retries; with ErrModelRefused, ErrContentRefused, ErrAllContentRefused, ErrInputTooLong or
// ErrRequestRejected for an HTTP 4xx that is not retried, which decide how the calls back
// off: Observer.Backoffs), ErrEmptyAnswer and ErrMalformedAnswer describe unusable answers,
// ErrPartial marks an Observe that stored part of its work before failing,
// ErrConfig an unusable Config, ErrInvalidFilter (a *FilterError naming
// the field) a Filter List and Search cannot answer, ErrSourcesChanged and ErrTurnsErased a
// reflection or an observation whose sources changed while it was computed. Context errors are returned wrapped.
package observe
