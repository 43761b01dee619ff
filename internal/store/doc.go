// Package store opens mnemo's SQLite database (modernc.org/sqlite, pure Go)
// and applies its versioned schema migrations.
//
// SQLite is the authority for threads, messages, embeddings, working memory,
// observations and the journal (DESIGN.md, "The authority and its
// derivatives"). The engine and the lower packages share one *sql.DB opened
// here; each package reads and writes only the tables documented as its own in
// schema.go.
//
// # Imports
//
// Owns the database file and the schema of every table (the migrations);
// each table's statements belong to one package above it (internal/msgstore:
// threads, messages, message_blobs, outbox, embeddings, embeddings_suspect
// (written by triggers on embeddings); journal: journal,
// runs, dispatches; working: working_memory, working_memory_history,
// working_config; observe: observations). It imports nothing of mnemo but
// internal/filekind (a leaf that names a file's kind, for the error of a
// -wal that is not a regular file): it is the bottom floor.
//
// It imports golang.org/x/sync/semaphore (the write gate's FIFO queue)
// besides modernc.org/sqlite.
//
// It also holds what the owners need to run on either backend (dialect.go):
// Dialect (SQLite, or Postgres through internal/pgstore.OpenDB), DialectOf
// (read from the *sql.DB's driver), Rebind, Bound and Begin/Tx (a transaction
// that carries its dialect), and Stmts rebinds at prepare time. Statements
// are written in SQLite's text; on SQLite they run exactly as written.
//
// # Invariants
//
//   - The database runs in WAL mode with synchronous=NORMAL, foreign keys on,
//     a busy timeout of 10 s and BEGIN IMMEDIATE for write transactions.
//   - The writers of one process on a database file Open opened queue in
//     its write gate (gate.go), first come first served, before SQLite's write
//     lock: a write transaction (BeginTx without ReadOnly: RunTx, Begin)
//     from its begin to its commit or rollback, a statement Exec runs
//     outside a transaction (an autocommit write, VACUUM, REINDEX) for its
//     run, and Checkpoint. So they never wait for each other in SQLite's
//     busy handler, which retries unfairly and failed a writer that lost
//     every retry for 10 s ("database is locked", rev43 F3); the busy
//     timeout remains for another process's connections. Reads, read-only
//     transactions, VacuumInto and CheckpointPassive pass it by. A writer
//     waits at the gate as long as its context allows, at most
//     BusyTimeoutMillis, and then returns ctx.Err() wrapped ("store: begin
//     a write transaction: waiting for this process's other writers:
//     context canceled") or ErrWriteBusy wrapped, nothing written. A
//     holder must not wait for the gate again (a second write
//     transaction, or an autocommit write on the pool, before its own
//     transaction ends): that fails with ErrWriteBusy after the bound.
//     Postgres has no gate (its row and advisory locks queue).
//   - The schema version lives in PRAGMA user_version. A database whose version
//     is newer than this build knows is refused with ErrSchemaTooNew and is
//     never modified.
//   - Each migration runs in one transaction with the version bump: a crash
//     leaves either the old or the new schema.
//   - The database file and its -wal/-shm companions are created 0600.
//   - On a database with a WriteCheck (SetWriteCheck; Postgres: the schema
//     version), every write through RunTx, Begin (not ReadOnly),
//     Stmts.Exec and the ExecContext of a Conn Bound to the *sql.DB runs
//     the check first in its transaction, and writes nothing when it
//     fails (writecheck.go). A statement Stmts.Exec or Bound would run
//     alone runs in a transaction of its own there.
//   - Once SQLite reported the file damaged to a connection (IsCorrupt),
//     closing the database neither checkpoints nor removes its WAL, and
//     CheckpointPassive does nothing: salvage keeps both as found
//     (damage.go: Damaged, CloseDB).
//   - Open scans the write-ahead log before SQLite reads it (wal.go,
//     walheader.go, walframe.go, walgap.go, walguard.go). SQLite's recovery stops at the first frame that fails
//     its checksum and drops later commits silently; when valid commits
//     lie past such a frame (and a checkpoint had not copied them into
//     the file), the log is kept byte for byte as path-wal.damaged-<UTC
//     time> before anything else, then repaired only when the repair is
//     exact (WALScan.Exact), else left to SQLite and reported
//     (WALDamageOf). A torn tail or an older generation's frames are not
//     damage; bytes missing from the log's middle are (WALScan.Gaps). A
//     repair never trusts a damaged frame's page number that the checks
//     cannot vouch for (walframe.go). When the -shm (walshm.go) says a
//     checkpoint copied frames past those the valid prefix holds, the
//     prefix would roll pages back: the log is kept and set aside unapplied
//     (WALDamage.SetAside); when no valid -shm tells and the log cannot be
//     repaired, a copy of the database file is kept first
//     (path.before-wal-<UTC time>, WALDamage.Before); so too when the
//     damage left no commit after it but the file holds pages newer than
//     the prefix (walnewer.go: a checkpoint had copied the damaged last
//     transaction). GuardReadOnly does
//     the same before a read-only open, whose recovery rewrites the -shm;
//     DamagedWAL (a backup's look at a log at rest) says a log to set
//     aside, and RepairWAL (a salvage's copy, given the original's -shm)
//     removes the copy's log unapplied.
//     Open assumes what every caller ensures: no other process
//     has the database open (the engine holds the data directory's lock).
//   - ClearFreeSpace (freespace.go) writes raw pages (sqlite_dbpage) in one
//     write transaction, and changes only bytes SQLite never reads: a
//     b-tree page's unallocated space and freeblock bodies, a free-list
//     leaf page (one that reads as a b-tree page is left). It writes
//     nothing when the free list does not hold together
//     (ErrFreeListDamaged).
//   - OpenReadOnly never writes the file nor checkpoints its WAL; VacuumInto
//     copies the database as of one commit into a new file with no free page
//     (copy.go: what engine.Backup writes).
//
// # Concurrency
//
// The returned *sql.DB is safe for concurrent use, as database/sql is. Its
// writers queue in its file's write gate (above), which every *sql.DB
// Open returned on that file in this process shares until CloseDB (the
// file known by device and inode, whatever name or link opened it); the
// writers of two processes still meet in SQLite's busy handler.
//
// # Errors
//
// Open returns ErrSchemaTooNew for a newer schema and wraps SQLite's own error,
// naming the file, when the file is not a database. ErrSchemaTooNew's text
// says "engine: …": the engine re-exports it.
package store
