package salvage

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// Report is what Copy recovered.
type Report struct {
	// SourceVersion is the damaged database's schema version; the new one
	// was written at it, then migrated to store.SchemaVersion.
	SourceVersion int `json:"sourceVersion"`
	// Tables has one entry per table of the schema, by name, but those
	// the schema derives itself (derived: not copied).
	Tables []Table `json:"tables"`
	// ThreadsRebuilt counts the threads whose row was lost but some
	// messages were not: the row is written again from them (resource,
	// first and last times; title and metadata are lost).
	ThreadsRebuilt int `json:"threadsRebuilt"`
	// Lost lists the seqs of messages this salvage found missing (a
	// thread's seqs 1..last_seq neither stored, erased nor lost before),
	// now recorded as known losses.
	Lost []journal.LostRange `json:"lost,omitempty"`
	// MarkersLost lists the seqs neither stored nor marked erased or lost
	// when the journal lost rows while no message was lost (markers.go):
	// their erasure tombstones (or records of an earlier salvage's loss)
	// were on its damaged pages. They are marked erased again, not lost.
	MarkersLost []journal.LostRange `json:"markersLost,omitempty"`
}

// Table is what Copy did with one table.
type Table struct {
	Name string `json:"name"`
	// Kept counts the rows written to the new database.
	Kept int64 `json:"kept"`
	// Unreadable lists the rowid ranges SQLite could not read and no
	// intact leaf page held (their rows, if any, are lost); the last
	// one's To is math.MaxInt64 when the damage reaches the end of the
	// table. Nil when every row the table held was read (account.go).
	Unreadable []Range `json:"unreadable,omitempty"`
	// Invalid counts rows read but refused by the schema (a constraint:
	// a duplicate key, a NULL, a value of the wrong type).
	Invalid int64 `json:"invalid,omitempty"`
	// FromPages counts the rows kept (in Kept) that SQL did not return,
	// read from the table's leaf pages (pages.go): those below a damaged
	// interior page, which hid them, and those of a leaf whose cell count
	// was garbled (cellcount.go).
	FromPages int64 `json:"fromPages,omitempty"`
	// Garbled counts rows read whole but dropped because a value is not
	// what mnemo writes (valid.go: text that is not UTF-8, a JSON column
	// that is not JSON, a vector that is not one) or, for messages, their
	// text does not match their stored digest (msgstore.Digest: a damaged
	// overflow page, or a large tool result whose full text was lost) or
	// their seq is out of place in their thread (seqs.go). What SQL
	// returns through the pointers past a garbled cell count is no row
	// and is counted nowhere (read.go's inOrder, stale.go).
	Garbled int64 `json:"garbled,omitempty"`
	// Redigested counts messages kept (in Kept) whose stored digest was
	// damaged while the text it covers reads whole: the digest agrees with
	// the text's on at least 48 of its 64 hex digits, in place, so only
	// the digest's bytes were hit (fixup.go's digestOnly); it is
	// recomputed.
	Redigested int64 `json:"redigested,omitempty"`
	// Orphans counts rows read but dropped because what they belong to
	// was lost (an embedding of a lost message, an observation of a lost
	// thread, …).
	Orphans int64 `json:"orphans,omitempty"`
	// Missing is set when the damaged database has no such table that
	// SQLite can read (nothing was copied).
	Missing bool `json:"missing,omitempty"`
}

// Range is an inclusive range of rowids.
type Range struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// Copy reads src, the copy of a damaged database that the caller owns
// (SQLite may replay its WAL into it), and writes every row it can read to
// a new database at dst (which must not exist), then drops orphans,
// recomputes the thread counters and records the lost seqs as of now.
// The source's schema page must be readable: an error says so otherwise.
// It honours ctx between statements; on error dst is left for the caller
// to remove.
func Copy(ctx context.Context, src, dst string, now time.Time) (*Report, error) {
	sdb, err := openSource(src)
	if err != nil {
		return nil, err
	}
	defer sdb.Close()
	var version int
	if err := sdb.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return nil, fmt.Errorf("salvage: the damaged file's header is unreadable (%w): nothing to salvage; restore it from a backup", err)
	}
	if version == 0 {
		return nil, fmt.Errorf("salvage: the damaged file holds no mnemo schema (schema version 0: empty, or its header garbled): nothing to salvage; restore it from a backup")
	}
	if version < 1 || version > store.SchemaVersion {
		return nil, fmt.Errorf("salvage: the damaged file has schema version %d: not a mnemo database this build knows (1..%d)", version, store.SchemaVersion)
	}
	rep := &Report{SourceVersion: version}
	if err := copyAt(ctx, sdb, dst, version, rep); err != nil {
		return nil, err
	}
	if noTable(rep.Tables) {
		return nil, fmt.Errorf("salvage: the damaged file's schema table (sqlite_schema: it starts on the first page and names where every table starts) is unreadable: no table of mnemo's schema was found, nothing to salvage; restore it from a backup")
	}
	if err := repair(ctx, dst, now, rep); err != nil { // fixup.go
		return nil, err
	}
	return rep, nil
}

// noTable reports whether none of tables was found in the damaged
// schema: a garbled schema tree behind an intact file header, which would
// salvage to an empty database.
func noTable(tables []Table) bool {
	for _, t := range tables {
		if !t.Missing {
			return false
		}
	}
	return true
}

// openSource opens the copy of the damaged database: one connection, no
// writes by SQL, cell_size_check so that SQLite reports more damage as
// corruption rather than returning what a garbled page seems to hold, and
// writable_schema, with which SQLite loads what it can read of a damaged
// schema instead of refusing every statement (a table whose schema row
// was lost is then missing).
func openSource(path string) (*sql.DB, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + url.Values{
		"_pragma": {"query_only(1)", "cell_size_check(1)", "foreign_keys(0)", "writable_schema(1)"},
	}.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("salvage: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// copyAt writes dst at schema version and copies every table's readable
// rows from sdb into it, in one transaction, foreign keys off (a message
// whose thread row was lost is kept: repair writes the thread again).
func copyAt(ctx context.Context, sdb *sql.DB, dst string, version int, rep *Report) error {
	ddb, err := store.OpenAt(ctx, dst, version)
	if err != nil {
		return fmt.Errorf("salvage: create %s: %w", dst, err)
	}
	defer store.CloseDB(ddb)
	conn, err := ddb.Conn(ctx)
	if err != nil {
		return fmt.Errorf("salvage: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		return fmt.Errorf("salvage: %w", err)
	}
	tables, err := tablesOf(ctx, conn)
	if err != nil {
		return err
	}
	pages, err := pageCount(ctx, sdb)
	if err != nil {
		return err
	}
	lp, err := locate(ctx, sdb, tables, pages) // pages.go
	if err != nil {
		return err
	}
	defer lp.close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("salvage: %w", err)
	}
	defer tx.Rollback()
	for _, t := range tables {
		if derived[t.name] {
			continue
		}
		res, err := copyTable(ctx, sdb, tx, t, pages, lp) // read.go
		if err != nil {
			return err
		}
		rep.Tables = append(rep.Tables, res)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("salvage: commit: %w", err)
	}
	return nil
}

// derived are the tables the schema writes itself from the rows of
// another, which are not copied: journal_tool_obs, the observation ids
// each recorded tool result lists, is written by a trigger as each
// journal row is copied (a source at schema 16 or later) or by the
// migration to 16 (an older one), so it holds exactly the links of the
// results kept: a copied link could name a result lost, and one lost
// with its page would leave a kept result that an erasure of its
// observation no longer finds. message_calls, the calls each assistant
// message made, is written likewise by the triggers on messages (schema 17
// on), so it holds the calls of the messages kept (a WITHOUT ROWID table,
// which the rowid reads could not copy anyway).
var derived = map[string]bool{"journal_tool_obs": true, "message_calls": true}

// pageCount is the damaged file's page count (0 when its header cannot
// say), which bounds the search for readable rows past a damaged end.
func pageCount(ctx context.Context, sdb *sql.DB) (int64, error) {
	var n int64
	if err := sdb.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&n); err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, nil
	}
	return n, nil
}

// Check runs SQLite's full integrity check on the database at path (a
// copy the caller owns) and returns its findings, at most limit; when it
// passes, it also compares every message's text with its digest (SQLite
// checks no content: a damaged overflow page garbles a text and nothing
// else). Nil when the database is sound.
func Check(ctx context.Context, path string, limit int) ([]string, error) {
	db, err := openSource(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	found, err := store.IntegrityCheck(ctx, db, true, limit)
	if err != nil || len(found) > 0 {
		return found, err
	}
	if found, err = enginesOpen(ctx, path); err != nil || len(found) > 0 {
		return found, err
	}
	bad, err := garbled(ctx, db)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return []string{err.Error()}, nil
	}
	for i, m := range bad {
		if i == limit {
			break
		}
		if m.digestOnly {
			found = append(found, fmt.Sprintf("message %d of thread %s: its digest is damaged, its text reads whole (a salvage keeps it and recomputes the digest)", m.seq, m.thread))
			continue
		}
		found = append(found, fmt.Sprintf("message %d of thread %s: its text does not match its digest (garbled)", m.seq, m.thread))
	}
	return found, nil
}

// enginesOpen reads the schema of the database at path as the engine
// opens it, without writable_schema, which lets SQLite read a file that
// every other open refuses (a header whose page count is past the end of
// the file: readme68 F10, which Check called sound while every command
// said the file was corrupt). It returns what SQLite says, nil when the
// read succeeds.
func enginesOpen(ctx context.Context, path string) ([]string, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + url.Values{"_pragma": {"query_only(1)"}}.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("salvage: open %s: %w", path, err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&n); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return []string{"the engine cannot open the file: " + err.Error()}, nil
	}
	return nil, nil
}
