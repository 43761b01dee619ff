package engine_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestErasureZeroesLeftoverMetadata: a copy of an erased message's
// metadata (free JSON that holds the user's text, as the metadata column
// stores it, escapes included) left in a b-tree page's free space leaves
// the database file with the erasure. The residue check looked for the
// contents' and the calls' arguments' prefixes only, and a message whose
// content is short (under 12 bytes, not looked for) left a copy of its
// metadata in the file; the metadata's prefix is now looked for.
func TestErasureZeroesLeftoverMetadata(t *testing.T) {
	for _, tc := range []struct {
		name  string
		erase func(context.Context, *engine.Engine, []string) error
	}{
		{"DeleteThread", func(ctx context.Context, e *engine.Engine, _ []string) error {
			_, err := e.DeleteThread(ctx, "gone")
			return err
		}},
		{"DeleteMessages", func(ctx context.Context, e *engine.Engine, ids []string) error {
			_, err := e.DeleteMessages(ctx, ids...)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			const note = `my erased note, zq-7731 "quoted" <b> & more`
			e := enginetest.SQLite.MustOpen(t, engine.Config{})
			res, err := e.Append(ctx, engine.AppendRequest{ThreadID: "gone", ResourceID: "r", Messages: []engine.Message{
				{Role: engine.RoleUser, Content: "ok", Metadata: map[string]any{"note": note}},
				{Role: engine.RoleUser, Content: "ok too", Metadata: map[string]any{"note": note}}}}) // the same metadata: one pattern
			if err != nil {
				t.Fatal(err)
			}
			appendUser(t, e, "kept", "r", "a turn of another thread, kept")
			var stored string
			if err := engine.DBOf(e).QueryRowContext(ctx, `SELECT metadata FROM messages WHERE id = ?`, res.IDs[0]).Scan(&stored); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(stored, `zq-7731 \"quoted\"`) {
				t.Fatalf("metadata stored as %s, which does not hold the note: the planted copy would not be the row's bytes", stored)
			}
			path := filepath.Join(e.Dir(), engine.DatabaseFile)
			enginetest.PlantLeftover(t, path, stored)
			if err := tc.erase(ctx, e, res.IDs); err != nil {
				t.Fatal(err)
			}
			if held, err := engine.FileHolds(path, [][]byte{[]byte(stored)}); err != nil || held {
				t.Fatalf("%s still holds the erased message's metadata %s (%v)", engine.DatabaseFile, stored, err)
			}
			if held, err := engine.FileHolds(path, [][]byte{[]byte("a turn of another thread, kept")}); err != nil || !held {
				t.Fatalf("the kept thread's text left the file (%v)", err)
			}
		})
	}
}
