package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/legacyid"
	"github.com/mnemo-go/mnemo/recall"
)

// TestCheckNotesReservedIDs: a data directory written before ids beginning
// with "erased-" were reserved (here by an engine with legacyid.Allow)
// holding thread "erased-x" of resource "erased-r", and thread "t2" of
// resource "erased-r", is noted by mnemo check with what to do (--json:
// reservedIds); an erased thread's tombstones are not. It said nothing
// before.
func TestCheckNotesReservedIDs(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	legacyid.Allow(e)
	for _, th := range []struct{ thread, resource string }{{"erased-x", "erased-r"}, {"t2", "erased-r"}, {"t3", "r3"}, {"gone", "r3"}} {
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: th.thread, ResourceID: th.resource, Messages: []engine.Message{{Role: "user", Content: "hello"}}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-gone", ThreadID: "gone"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DeleteThread(ctx, "gone"); err != nil { // leaves tombstones behind
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "check", "--json")
	var rep struct{ ReservedIDs []struct{ Kind, ID string } }
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
		t.Fatalf("check --json: exit %d, %v:\n%s%s", code, err, out, stderr)
	}
	if got, want := fmt.Sprint(rep.ReservedIDs), "[{thread erased-x} {resource erased-r}]"; got != want {
		t.Errorf("check --json: reservedIds %s, want %s", got, want)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "check")
	want := `mnemo check: note: thread "erased-x", resource "erased-r" stored before ids beginning with "erased-" were reserved for erased owners`
	if code != 0 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "mnemo delete --thread or --resource") || strings.Contains(out, "note:") {
		t.Fatalf("check: exit %d, want 0 and %q with what to do:\n%s%s", code, want, out, stderr)
	}
}
