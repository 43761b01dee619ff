package engine_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

var errCrash = errors.New("crash injected")

// TestSalvageSwapInterrupted stops a salvage of a damaged mnemo.db with a
// -wal beside it before each step of its swap, as a crash would: Open
// then refuses the directory with ErrSalvageInterrupted; the damaged
// original, WAL included, is whole under mnemo.db or its kept name; and
// salvage run again finishes: the kept files are the original's, the
// directory opens, checks ok and lost only the damaged page's messages.
func TestSalvageSwapInterrupted(t *testing.T) {
	for _, step := range []string{"wal", "main", "marker"} {
		t.Run(step, func(t *testing.T) {
			ctx := context.Background()
			dir := salvageFixture(t, false)
			path := filepath.Join(dir, engine.DatabaseFile)
			before := soundRows(t, dir)
			pages, _ := pagesOf(t, path, "messages", "leaf")
			garble(t, path, pages[len(pages)/2], 1)
			// A WAL whose header SQLite does not accept (so it reads the
			// main file alone) stands for the damaged file's WAL: what
			// matters is that it is kept, and never beside another file.
			if err := os.WriteFile(path+"-wal", []byte("the damaged file's WAL"), 0o600); err != nil {
				t.Fatal(err)
			}
			sum, walSum := fileSum(t, path), fileSum(t, path+"-wal")
			restore := engine.SetSalvageSwapHook(func(s string) error {
				if s == step {
					return errCrash
				}
				return nil
			})
			_, err := engine.Salvage(ctx, engine.Config{Dir: dir}, engine.SalvageOptions{})
			restore()
			if !errors.Is(err, errCrash) {
				t.Fatalf("salvage: %v", err)
			}
			if _, err := engine.Open(ctx, engine.Config{Dir: dir}); !errors.Is(err, engine.ErrSalvageInterrupted) {
				t.Fatalf("open of a half-swapped directory: %v", err)
			}
			rep, err := engine.Salvage(ctx, engine.Config{Dir: dir}, engine.SalvageOptions{})
			if err != nil || rep.Sound || rep.Damaged == "" || len(rep.Problems) > 0 || rep.Resumed != (step == "marker") {
				t.Fatalf("salvage again: %v %+v", err, rep)
			}
			if fileSum(t, rep.Damaged) != sum || fileSum(t, rep.Damaged+"-wal") != walSum {
				t.Fatal("the damaged original is not kept whole")
			}
			if _, err := os.Stat(filepath.Join(dir, engine.DatabaseFile+".salvage-swap")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the swap's record is left: %v", err)
			}
			after := dumpRows(t, path)
			if lost := compareSalvaged(t, before, after, []string{"messages"}); int64(lost) != rep.LostMessages() {
				t.Errorf("%d messages lost, report %+v", lost, rep.Lost)
			}
			usable(t, dir, before, after, rep)
		})
	}
}

// TestSalvageStoppedBeforeRebuild: a salvage stopped after its swap but
// before it rebuilt the indexes (Ctrl-C, a kill) left the indexes of the
// damaged file, holding the messages it lost: Check then failed ("1 entry
// in the lexical index is not a stored message") until a reindex. The
// swap removes the derived indexes, so the next Open rebuilds them from
// the salvaged file and Check passes.
func TestSalvageStoppedBeforeRebuild(t *testing.T) {
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
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// A garbled message (its text no longer its digest), which the
	// salvage drops.
	db, err := sql.Open("sqlite", filepath.Join(dir, engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE messages SET content = 'garbled turn' WHERE id = 'm2'`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	restore := engine.SetSalvageSwapHook(func(s string) error {
		if s == "rebuild" {
			return errCrash
		}
		return nil
	})
	_, err = engine.Salvage(ctx, engine.Config{Dir: dir}, engine.SalvageOptions{Force: true})
	restore()
	if !errors.Is(err, errCrash) {
		t.Fatalf("salvage: %v", err)
	}
	e, err = engine.Open(ctx, engine.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Check(ctx); err != nil {
		t.Fatalf("check after a salvage stopped before its rebuild: %v", err)
	}
}
