package importer_test

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// The importer fuzz targets feed arbitrary bytes to Import in one format,
// on one engine per fuzz worker, and check that it never panics, that it
// stores exactly the messages it reports, that every stored text is valid
// UTF-8 without NUL bytes, and that nothing is written next to the input
// file. Seeds: testdata/seed/* and testdata/malformed.jsonl; findings go
// to testdata/fuzz/<target>/.
//
//	go test ./importer -run '^$' -fuzz FuzzImportJSONL -fuzztime 3m

func FuzzImportJSONL(f *testing.F) {
	fuzzImport(f, importer.FormatJSONL, "testdata/seed/sample.jsonl", "testdata/malformed.jsonl")
}

func FuzzImportLoCoMo(f *testing.F) {
	fuzzImport(f, importer.FormatLoCoMo, "testdata/seed/locomo.json")
}

func FuzzImportLongMemEval(f *testing.F) {
	fuzzImport(f, importer.FormatLongMemEval, "testdata/seed/longmemeval.json")
}

func fuzzImport(f *testing.F, format string, seeds ...string) {
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte("[]"))
	f.Add([]byte("{\"thread\":\"t\\u0000\",\"resource\":\"r\",\"role\":\"user\",\"content\":\"\\ud800\"}\n"))
	f.Add([]byte("[" + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "]"))
	ctx := context.Background()
	// hash-384, whatever models this machine has: the fuzzer measures the
	// importer, not an embedder.
	e := enginetest.MustOpen(f, engine.Config{Embedder: recall.HashEmbedder{}})
	db := openReadOnly(f, e)
	in := f.TempDir()
	path := filepath.Join(in, "input")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		var before int64
		if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(pk), 0) FROM messages`).Scan(&before); err != nil {
			t.Fatal(err)
		}
		rep, err := importer.Import(ctx, e, path, importer.Options{Format: format})
		if err != nil && errors.Is(err, engine.ErrClosed) {
			t.Fatal(err)
		}
		rows, qerr := db.QueryContext(ctx, `SELECT id, thread_id, content, name, metadata FROM messages WHERE pk > ?`, before)
		if qerr != nil {
			t.Fatal(qerr)
		}
		stored := 0
		for rows.Next() {
			var id, thread, content, name, md string
			if err := rows.Scan(&id, &thread, &content, &name, &md); err != nil {
				t.Fatal(err)
			}
			stored++
			for field, s := range map[string]string{"id": id, "thread": thread, "content": content, "name": name, "metadata": md} {
				if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
					t.Fatalf("stored %s of %s is not clean text: %q", field, id, s)
				}
			}
			if !engine.ValidID(id) || !engine.ValidID(thread) {
				t.Fatalf("stored invalid id %q / thread %q", id, thread)
			}
		}
		rows.Close()
		if rep != nil && rep.Messages != stored {
			t.Fatalf("report says %d messages stored, %d rows appeared (err %v)", rep.Messages, stored, err)
		}
		if rep == nil && stored != 0 {
			t.Fatalf("import failed (%v) but %d messages appeared", err, stored)
		}
		ents, derr := os.ReadDir(in)
		if derr != nil {
			t.Fatal(derr)
		}
		if len(ents) != 1 {
			t.Fatalf("the import wrote next to its input: %d entries in %s", len(ents), in)
		}
	})
}

// openReadOnly opens the engine's SQLite file read-only, so the fuzz target
// sees the rows an import stored without a handle that could write them.
func openReadOnly(tb testing.TB, e *engine.Engine) *sql.DB {
	tb.Helper()
	path := filepath.Join(e.Dir(), engine.DatabaseFile)
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
