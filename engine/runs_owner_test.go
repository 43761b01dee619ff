package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
)

// TestThreadRunsListOnlyTheOwners: resource A loads context on a thread
// nobody has created (a new conversation's first turn, recorded under A),
// never appends, and resource B then creates that thread id. Listing the
// thread's runs, alone or with B's resource, shows none of A's runs; A's
// own listing still shows its run, and so does the thread's with A's
// resource (GET /v1/runs?threadId= of A's token).
func TestThreadRunsListOnlyTheOwners(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		const secret = "zanzibarsecret"
		if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "a-run", ThreadID: "shared-x", ResourceID: "res-a", Query: "my " + secret + " plan"}); err != nil {
			t.Fatal(err)
		}
		appendTo(t, e, "shared-x", "res-b", user("", "B's first turn"))
		if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "b-run", ThreadID: "shared-x"}); err != nil {
			t.Fatal(err)
		}
		for _, f := range []journal.RunFilter{{ThreadID: "shared-x"}, {ResourceID: "res-b"}} {
			runs, err := e.Journal().ListRuns(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(runs)
			if len(runs) != 1 || runs[0].RunID != "b-run" || strings.Contains(string(b), "res-a") || strings.Contains(string(b), secret) {
				t.Fatalf("ListRuns(%+v) = %s; want only B's run b-run", f, b)
			}
		}
		for _, f := range []journal.RunFilter{{ResourceID: "res-a"}, {ThreadID: "shared-x", ResourceID: "res-a"}} {
			runs, err := e.Journal().ListRuns(ctx, f)
			if err != nil || len(runs) != 1 || runs[0].RunID != "a-run" || runs[0].ThreadID != "shared-x" {
				t.Fatalf("A's own runs, ListRuns(%+v): %+v, %v; want a-run on shared-x", f, runs, err)
			}
		}
	})
}
