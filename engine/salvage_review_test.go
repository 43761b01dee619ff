package engine_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestOpenDamagedEmbeddingsPage: a garbled page that Open reaches only in
// its repairs (the scan for damaged stored embeddings, which runs when the
// schema's triggers marked the embedder) is reported as
// ErrDatabaseCorrupt, with the advice to restore or salvage, like a page
// the schema read reaches; then a salvage makes the directory open.
// Unmarked, Open does not read the page, and Check finds it.
func TestOpenDamagedEmbeddingsPage(t *testing.T) {
	ctx := context.Background()
	for _, marked := range []bool{true, false} {
		t.Run(map[bool]string{true: "Marked", false: "Unmarked"}[marked], func(t *testing.T) {
			dir := salvageFixture(t, false)
			path := filepath.Join(dir, engine.DatabaseFile)
			if marked {
				db := openRaw(t, path)
				if _, err := db.Exec(`INSERT INTO embeddings_suspect (embedder) SELECT DISTINCT embedder FROM embeddings`); err != nil {
					t.Fatal(err)
				}
				db.Close()
			}
			pages, _ := pagesOf(t, path, "embeddings", "leaf")
			if len(pages) < 3 {
				t.Fatalf("fixture: %d embeddings leaf pages", len(pages))
			}
			garble(t, path, pages[len(pages)/2], 11)
			e, err := engine.Open(ctx, engine.Config{Dir: dir})
			if !marked {
				if err != nil {
					t.Fatalf("open, the embedder unmarked: %v; want no read of the garbled page", err)
				}
				if err := e.Check(ctx); !errors.Is(err, engine.ErrDatabaseCorrupt) {
					t.Errorf("check with a garbled embeddings page: %v, want ErrDatabaseCorrupt", err)
				}
				e.Close()
				return
			}
			if !errors.Is(err, engine.ErrDatabaseCorrupt) {
				t.Fatalf("open with a garbled embeddings page: %v, want ErrDatabaseCorrupt", err)
			}
			if _, err := engine.Salvage(ctx, engine.Config{Dir: dir}, engine.SalvageOptions{}); err != nil {
				t.Fatal(err)
			}
			e, err = engine.Open(ctx, engine.Config{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			e.Close()
		})
	}
}

// TestSalvageGarbledSchemaTree: a first page whose 100-byte file header is
// intact but whose schema b-tree is garbage leaves no table to read. The
// salvage must refuse (the directory unchanged), not swap in an empty
// database that checks ok and reports no message lost.
func TestSalvageGarbledSchemaTree(t *testing.T) {
	ctx := context.Background()
	dir := salvageFixture(t, false)
	path := filepath.Join(dir, engine.DatabaseFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 100; i < 4096; i++ {
		b[i] = byte(i*31 + 7)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	sum := fileSum(t, path)
	rep, err := engine.Salvage(ctx, engine.Config{Dir: dir}, engine.SalvageOptions{})
	if err == nil || !strings.Contains(err.Error(), "schema") {
		t.Fatalf("salvage of a garbled schema tree: %v, report %+v", err, rep)
	}
	if fileSum(t, path) != sum {
		t.Fatal("mnemo.db changed")
	}
	if kept, _ := filepath.Glob(path + ".damaged-*"); len(kept) > 0 {
		t.Fatalf("swapped: %v", kept)
	}
}

// TestSalvageRemovesStaleStaging: the staging directory of a salvage
// killed before it could remove it (SIGKILL, power loss) holds a copy of
// the whole database; the next salvage, holding the lock, removes it.
func TestSalvageRemovesStaleStaging(t *testing.T) {
	ctx := context.Background()
	dir := salvageFixture(t, false)
	stale := filepath.Join(dir, ".salvage-123")
	if err := os.MkdirAll(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stale, "damaged.db"), []byte("a copy"), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := engine.Salvage(ctx, engine.Config{Dir: dir}, engine.SalvageOptions{})
	if err != nil || !rep.Sound {
		t.Fatalf("salvage of a sound database: %v %+v", err, rep)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stale staging directory left: %v", err)
	}
}

// TestSalvageNothingToRead: a mnemo.db cut to 0 bytes, or one that is not
// SQLite at all, has nothing to salvage: the error says to restore a
// backup, and the directory is unchanged.
func TestSalvageNothingToRead(t *testing.T) {
	ctx := context.Background()
	for name, content := range map[string][]byte{"empty": nil, "not SQLite": []byte(strings.Repeat("not a database ", 500))} {
		dir := salvageFixture(t, false)
		path := filepath.Join(dir, engine.DatabaseFile)
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := engine.Salvage(ctx, engine.Config{Dir: dir}, engine.SalvageOptions{})
		if err == nil || !strings.Contains(err.Error(), "restore it from a backup") || strings.Contains(err.Error(), "salvage: salvage:") {
			t.Fatalf("%s: salvage: %v", name, err)
		}
		if kept, _ := filepath.Glob(path + ".damaged-*"); len(kept) > 0 {
			t.Fatalf("%s: swapped: %v", name, kept)
		}
	}
}

// TestSalvageGarbledSeq: a message's digest covers its text, not its seq,
// and SQLite checks no value: a byte of a seq flipped in place (2 stored
// in one byte, 0xff-flipped, reads back as -3) leaves a whole row that
// passes every check a salvage made. The salvage copied it, recorded seq
// 2 as lost, and ended with mnemo check still finding "seqs -3..3"; the
// row is garbled and dropped, its seq recorded as lost once.
func TestSalvageGarbledSeq(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []engine.Message{user("m1", "first turn"), user("m2", "second turn"), user("m3", "third turn")}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE messages SET seq = -3 WHERE thread_id = 't' AND seq = 2`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	rep, err := engine.Salvage(ctx, engine.Config{Dir: dir}, engine.SalvageOptions{Force: true})
	if err != nil {
		t.Fatalf("salvage: %v (report %+v)", err, rep)
	}
	if len(rep.Problems) > 0 {
		t.Fatalf("check after the salvage: %q", rep.Problems)
	}
	if got, want := rep.LostMessages(), int64(1); got != want {
		t.Fatalf("lost %d messages (%+v), want %d", got, rep.Lost, want)
	}
	if l := rep.Lost[0]; l.ThreadID != "t" || l.FromSeq != 2 || l.ToSeq != 2 {
		t.Fatalf("lost %+v, want seq 2 of t", l)
	}
}

// TestSalvageSwapRecordNotFollowed: the swap's record is written aside
// first (mnemo.db.salvage-swap.tmp); a link found there was followed and
// its target truncated and overwritten (O_TRUNC). It is replaced instead,
// the target untouched, and the salvage completes.
func TestSalvageSwapRecordNotFollowed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("m1", "first turn")}}); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(target, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, engine.DatabaseFile+".salvage-swap.tmp")); err != nil {
		t.Fatal(err)
	}
	rep, err := engine.Salvage(ctx, engine.Config{Dir: dir}, engine.SalvageOptions{Force: true})
	if err != nil || len(rep.Problems) > 0 {
		t.Fatalf("salvage: %v %+v", err, rep)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "precious\n" {
		t.Fatalf("the link's target now holds %q (%v)", b, err)
	}
}
