package engine_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestSalvageKeepsIndex: a salvage moves the index directory derived from
// the damaged database (the lexical index and the shard snapshots) beside
// the damaged file it keeps, mnemo.db.damaged-<time>-index, and says so
// (SalvageReport.KeptIndex, KeptDamaged). The shard snapshot may be the
// only other copy of the text of the messages the salvage lost: the swap
// deleted it (walk35: "572 messages lost", index/snapshots empty after,
// nothing kept). Stopped at the swap's last step, the salvage resumed
// reports the same kept directory. The salvaged directory checks ok.
func TestSalvageKeepsIndex(t *testing.T) {
	for _, stop := range []string{"", "marker"} {
		t.Run("stop="+stop, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			cfg := engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}}
			bigResource(t, cfg, 300)
			snaps, _ := filepath.Glob(filepath.Join(dir, engine.SnapshotDir, "*"))
			if len(snaps) == 0 {
				t.Fatal("no shard snapshot was written")
			}
			garbleMessage(t, dir, "m-150") // its text no longer its digest: lost
			if stop != "" {
				restore := engine.SetSalvageSwapHook(func(s string) error {
					if s == stop {
						return errCrash
					}
					return nil
				})
				_, err := engine.Salvage(ctx, cfg, engine.SalvageOptions{})
				restore()
				if !errors.Is(err, errCrash) {
					t.Fatalf("salvage stopped at %s: %v", stop, err)
				}
			}
			rep, err := engine.Salvage(ctx, cfg, engine.SalvageOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.LostMessages() != 1 || len(rep.Problems) > 0 {
				t.Fatalf("lost %+v, problems %v", rep.Lost, rep.Problems)
			}
			want := rep.Damaged + "-index"
			if rep.KeptIndex != want {
				t.Errorf("KeptIndex = %q, want %q", rep.KeptIndex, want)
			}
			kept, _ := filepath.Glob(filepath.Join(want, "snapshots", "*"))
			if !holds(t, kept, "note 150 about the night train") {
				t.Fatalf("no kept snapshot holds the lost message's text (kept %v)", kept)
			}
			if got := engine.KeptDamaged(dir); !slices.Contains(got, filepath.Base(want)) {
				t.Errorf("KeptDamaged = %v, want it to name %s", got, filepath.Base(want))
			}
			e, err := engine.Open(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if err := e.Check(ctx); err != nil {
				t.Fatalf("check after the salvage: %v", err)
			}
		})
	}
}

// bigResource writes n messages to thread t of resource r (ids m-<i>),
// searches them so that the resource's shard is loaded, and closes the
// engine, which writes its shard snapshot.
func bigResource(t *testing.T, cfg engine.Config, n int) {
	t.Helper()
	ctx := context.Background()
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ms := make([]engine.Message, n)
	for i := range ms {
		ms[i] = user(fmt.Sprintf("m-%d", i), fmt.Sprintf("note %d about the night train to Porto", i))
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: ms}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "train"}); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}

// garbleMessage changes the text of message id behind mnemo's back: its
// digest no longer matches, and a salvage drops it as lost.
func garbleMessage(t *testing.T, dir, id string) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE messages SET content = 'garbled' WHERE id = ?`, id); err != nil {
		t.Fatal(err)
	}
}

// holds reports whether one of files contains text.
func holds(t *testing.T, files []string, text string) bool {
	t.Helper()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(text)) {
			return true
		}
	}
	return false
}
