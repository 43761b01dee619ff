// Package salvage copies what is still readable of a damaged mnemo SQLite
// database into a new one written with mnemo's own schema (the store's
// migrations), drops the rows whose owner was lost, recomputes what the
// tables derive (thread counters) and records the seqs of the messages
// lost (journal.ScopeLost). It needs nothing but the SQLite the binary
// links (modernc.org/sqlite, which ships sqlite_dbpage and dbstat but not
// SQLite's recover extension): each table is read by rowid ranges through
// its own b-tree (NOT INDEXED, so a damaged index hides nothing), and a
// range SQLite cannot read is read backwards and bisected down to the
// rowids it cannot read (read.go). A damaged interior page hides the
// leaves below it from SQL: a table whose b-tree met damage also gets
// the rows SQL did not return from its intact leaf pages, read a page
// at a time through sqlite_dbpage (pages.go, btree.go, record.go,
// leaf.go). The engine's Salvage
// (engine/salvage.go) owns the files: the copy of the damaged file this
// package reads, the directory's lock and the swap.
//
// # Imports
//
// salvage imports internal/store (the schema's migrations, OpenAt),
// internal/msgstore (Digest, the message check) and journal (ScopeLost,
// the records of lost seqs, and TombstoneSeq); never engine, which calls it.
//
// # Invariants
//
//   - The source is only read (query_only); the caller hands it a copy.
//     FixHeader alone writes it: the fields of page 1 that the rest of
//     the file tells or that are fixed text (header.go).
//   - No erased row comes back: a leaf page is read only by the cells
//     its header lists, never a page on the freelist, and pages no
//     b-tree reaches only when the freelist reads whole (pages.go).
//   - No row is invented: every row written was read from the source,
//     value for value; a row whose values break what mnemo writes
//     (valid.go), whose text does not match its digest (messages) or whose
//     seq is out of place in its thread (seqs.go) is dropped and counted
//     as garbled, not repaired.
//   - The result passes the engine's Check apart from its derived indexes:
//     no orphan, thread counters equal to what the messages say, and every
//     seq 1..last_seq of a thread stored, erased or recorded as lost.
//   - No erased message is counted as lost when none can have been: a
//     seq whose marker was lost with the journal while the messages table
//     was read whole is marked erased again (markers.go).
//
// # Concurrency
//
// Copy and Check use their own connections to files nobody else opens.
//
// # Errors
//
// Copy fails when the source's header or schema is unreadable (nothing can
// be located without it), when ctx ends, and when the new file cannot be
// written; a page SQLite cannot read is never an error.
package salvage
