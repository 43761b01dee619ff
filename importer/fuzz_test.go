package importer_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// The importer fuzz targets feed arbitrary bytes to Import in one format,
// on one engine per fuzz worker, and check (importCheck) that it never
// panics, that it stores exactly the messages it reports, that every
// stored text is valid UTF-8 without NUL bytes, and that nothing is
// written next to the input file. Seeds: testdata/seed/*; findings go to
// testdata/fuzz/<target>/.
//
//	go test ./importer -run '^$' -fuzz FuzzImportLoCoMo -fuzztime 3m -fuzzminimizetime 100x
//
// The fuzzer minimizes each new input for up to -fuzzminimizetime (60 s
// unless given), counting none of those runs; with an import per run that
// took a whole minute of FuzzImportJSONL's (8 executions in 60 s), hence
// 100x.
//
// JSONL is fuzzed line by line without an engine (FuzzParseJSONL, an
// import per input ran 8 in a minute); TestImportJSONL runs importCheck
// over its seeds.

// TestImportJSONL runs importCheck over JSONL files: the seeds, the
// malformed and chat API files, and lines that once broke the parser.
func TestImportJSONL(t *testing.T) {
	inputs := map[string][]byte{
		"empty":          {},
		"list":           []byte("[]"),
		"nul, surrogate": []byte("{\"thread\":\"t\\u0000\",\"resource\":\"r\",\"role\":\"user\",\"content\":\"\\ud800\"}\n"),
		"deep":           []byte("[" + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "]"),
		"trailing brace": []byte(`{"thread":"t","resource":"r","Role":"user","content":"hi"}}` + "\n"),
		"trailing list":  []byte(`{"thread":"t","resource":"r","role":"user","content":"hi"}]`),
	}
	files, _ := filepath.Glob("testdata/chatapi/*.jsonl")
	for _, name := range append(files, "testdata/seed/sample.jsonl", "testdata/malformed.jsonl") {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		inputs[name] = b
	}
	ic := newImportCheck(t, importer.FormatJSONL)
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) { ic.run(t, data) })
	}
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
		// A stray bracket after the array, and no closing one
		// (TestImportArrayEnd).
		b = bytes.TrimSpace(b)
		f.Add(append(slices.Clip(b), ']'))
		f.Add(append(slices.Clip(b), '}'))
		f.Add(b[:len(b)-1])
	}
	f.Add([]byte{})
	f.Add([]byte("[]"))
	f.Add([]byte("[" + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "]"))
	ic := newImportCheck(f, format)
	f.Fuzz(ic.run)
}

// importCheck imports inputs in one format into one engine and checks
// what each import stored.
type importCheck struct {
	format string
	e      *engine.Engine
	db     *sql.DB // the engine's file, read-only
	in     string  // the directory of path, which holds nothing else
	path   string  // the input file
}

// newImportCheck opens an engine with the hash embedder (hash-384,
// whatever models this machine has: the check measures the importer, not
// an embedder), closed when tb ends.
func newImportCheck(tb testing.TB, format string) *importCheck {
	e := enginetest.MustOpen(tb, engine.Config{Embedder: recall.HashEmbedder{}})
	in := tb.TempDir()
	return &importCheck{format: format, e: e, db: openReadOnly(tb, e), in: in, path: filepath.Join(in, "input")}
}

// run imports data and fails t unless Import stored exactly the messages
// it reports, each of clean text and valid ids, and wrote nothing next
// to its input; an import that fails stores nothing.
func (c *importCheck) run(t *testing.T, data []byte) {
	ctx := context.Background()
	if err := os.WriteFile(c.path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var before int64
	if err := c.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(pk), 0) FROM messages`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	rep, err := importer.Import(ctx, c.e, c.path, importer.Options{Format: c.format})
	if err != nil && errors.Is(err, engine.ErrClosed) {
		t.Fatal(err)
	}
	rows, qerr := c.db.QueryContext(ctx, `SELECT id, thread_id, content, name, metadata FROM messages WHERE pk > ?`, before)
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
		if !engine.ValidNewID(id) || !engine.ValidNewID(thread) { // new data: never "." or ".."
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
	ents, derr := os.ReadDir(c.in)
	if derr != nil {
		t.Fatal(derr)
	}
	if len(ents) != 1 {
		t.Fatalf("the import wrote next to its input: %d entries in %s", len(ents), c.in)
	}
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
