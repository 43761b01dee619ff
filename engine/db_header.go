package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mnemo-go/mnemo/internal/store"
)

// sqliteHeaderSize is the size in bytes of the header that begins every
// SQLite database file (https://sqlite.org/fileformat.html, 1.3); the
// schema version mnemo keeps (PRAGMA user_version) is the big-endian
// 4-byte integer at offset 60.
const (
	sqliteHeaderSize   = 100
	userVersionOffset  = 60
	userVersionEndByte = userVersionOffset + 4
)

// Page 1 of a SQLite database holds the schema table (sqlite_schema)
// after the file header: its b-tree page header starts at offset 100
// with the page type (13: a leaf table page) and holds the number of
// cells, big-endian, at offsets 103-104 (fileformat.html, 1.6). A leaf
// with no cell is a schema with no table, index or view.
const (
	schemaPageType  = sqliteHeaderSize
	schemaCellCount = sqliteHeaderSize + 3
	schemaHeaderEnd = schemaCellCount + 2
	leafTablePage   = 13
)

// databaseHeader refuses dir's database file, before SQLite opens it, when
// it holds no memory or no database mnemo wrote:
//   - 0 bytes (a failed copy, a full disk, a salvage that wrote nothing):
//     SQLite would take it for a new database and the directory would
//     answer as an empty memory; answered by emptyRefusal (ErrDatabaseEmpty
//     beside the indexes an open created, or with mustExist:
//     Config.MustExist, a command that reads an existing memory; a
//     writer's open of an empty file with nothing beside it, a first open
//     cut short before its schema, writes the schema, as into a new file);
//   - 1 to 99 bytes, shorter than SQLite's header: ErrDatabaseEmpty
//     (SQLite took a file of 1 byte for a new database and wrote a new
//     schema over it);
//   - a SQLite database at schema version 0 whose schema holds nothing
//     (no table, index or view: a first open cut short after SQLite wrote
//     the header, by a full disk say): as a file of 0 bytes (emptyRefusal);
//   - a SQLite database at schema version 0 with a schema: ErrNoSchema
//     (another program's database, or one whose mnemo tables were
//     dropped; every command, reading or writing, would have written
//     mnemo's schema into it).
//
// When the file is empty, says schema version 0 or is shorter than page
// 1's headers, and the write-ahead log holds frames, page 1 is the log's,
// as SQLite reads it (walPage1): another program's database whose tables
// are still only in its log was migrated (fix52); a log without page 1
// leaves SQLite and the migration (store.ErrNoSchema) to judge it. A
// missing file is Open's. Nothing is written to the file or the log.
// Open and Backup (with mustExist) both ask it.
func databaseHeader(dir string, mustExist bool) error {
	path := filepath.Join(dir, DatabaseFile)
	head, n, err := readHeader(path)
	if err != nil {
		return nil // missing: Open's; unreadable: SQLite says why
	}
	if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 {
		if n == schemaHeaderEnd && binary.BigEndian.Uint32(head[userVersionOffset:userVersionEndByte]) != 0 {
			return nil // mnemo's header (a foreign one at another version: the migration's)
		}
		page, ok, err := store.WALPage(path, 1)
		if err != nil || !ok || len(page) < schemaHeaderEnd {
			return nil // SQLite and the migration judge it
		}
		head, n = page[:schemaHeaderEnd], schemaHeaderEnd
	}
	switch {
	case n == 0:
		return emptyRefusal(dir, path+" has 0 bytes", mustExist)
	case n < sqliteHeaderSize:
		return fmt.Errorf("%w: %s has %d %s, fewer than the %d of a SQLite database's header: it holds no database", ErrDatabaseEmpty, path, n, plural(n, "byte"), sqliteHeaderSize)
	}
	if string(head[:16]) != "SQLite format 3\x00" {
		return nil // SQLite refuses it (SQLITE_NOTADB): ErrDatabaseCorrupt
	}
	if binary.BigEndian.Uint32(head[userVersionOffset:userVersionEndByte]) == 0 {
		if n == schemaHeaderEnd && head[schemaPageType] == leafTablePage &&
			binary.BigEndian.Uint16(head[schemaCellCount:schemaHeaderEnd]) == 0 {
			return emptyRefusal(dir, path+" is a SQLite database with no table", mustExist)
		}
		return fmt.Errorf("%w: %s is a SQLite database at schema version 0, not one mnemo wrote (it writes version %d): nothing was written to it", ErrNoSchema, path, store.SchemaVersion)
	}
	return nil
}

// emptyRefusal is databaseHeader's answer for a database file that holds
// no memory (what names the file and says how: "… has 0 bytes"):
// ErrDatabaseEmpty beside the indexes or when mustExist, else nil (a
// writer's open then writes the schema, as into a new file).
func emptyRefusal(dir, what string, mustExist bool) error {
	if _, err := os.Stat(filepath.Join(dir, filepath.Dir(LexicalDir))); err == nil {
		return fmt.Errorf("%w: %s, beside the indexes of a database", ErrDatabaseEmpty, what)
	}
	if mustExist {
		return fmt.Errorf("%w: %s: it holds no memory, and a data directory's database is never empty", ErrDatabaseEmpty, what)
	}
	return nil
}

// readHeader reads the first schemaHeaderEnd bytes of the file at path:
// them, how many it holds (fewer for a shorter file), and the error of
// opening it or of reading it other than its end.
func readHeader(path string) ([]byte, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	head := make([]byte, schemaHeaderEnd)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, 0, err
	}
	return head, n, nil
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
