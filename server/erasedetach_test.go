package server_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// TestEraseOutlivesTheClient: an erasure is not cancelled when its client
// hangs up. A DELETE /v1/resources/victim whose client gave up after 0.6 s
// cancelled the erasure's purge: the transaction had committed, the
// answer (to nobody) was a 200 with purgeIncomplete, and the erased text
// stayed in the lexical index's segment files until another erasure
// removed something. Tenant.Erase (the DELETE routes and memory_delete)
// now runs the erasure detached from the caller's cancellation, bounded by
// its deadline: given a context already cancelled, the erasure is done and
// purged, and no file of the data directory holds the text.
func TestEraseOutlivesTheClient(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	for _, r := range []string{"victim", "other"} {
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t-" + r, ResourceID: r,
			Messages: []engine.Message{{Role: "user", Content: r + "mark: the quokka ferry leaves at ten"}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	gone, cancel := context.WithCancel(ctx)
	cancel() // the client hung up
	res, err := server.Tenant{Engine: e, Principal: server.Operator}.Erase(gone, "resource", "victim")
	if err != nil || len(res.Messages) != 1 || res.PurgeIncomplete != "" {
		t.Fatalf("erasure of a client that hung up: %+v, %v; want 1 message erased and purged", res, err)
	}
	var hits []string
	_ = filepath.WalkDir(e.Dir(), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, rerr := os.ReadFile(p); rerr == nil && strings.Contains(string(b), "victimmark") {
				hits = append(hits, p)
			}
		}
		return nil
	})
	if len(hits) > 0 {
		t.Errorf("the erased text is still in %v", hits)
	}
}
