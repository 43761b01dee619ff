package engine_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestFirstSearchCancelledError: a resource's first search (its shard
// loaded from a snapshot and caught up, or read from the store) with its
// context cancelled fails with an error wrapping context.Canceled whose
// text has recall's prefix and the resource once. Both the store and
// recall wrapped it: "recall: threads of r: recall: threads of r: context
// canceled".
func TestFirstSearchCancelledError(t *testing.T) {
	for _, tc := range []struct {
		name     string
		snapshot bool
		step     string
	}{
		{"Snapshot", true, "threads of r"},
		{"Store", false, "load messages of r"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, file := closedSnapshot(t)
			if !tc.snapshot {
				if err := os.Remove(file); err != nil {
					t.Fatal(err)
				}
			}
			e, err := engine.Open(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err = e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "parcel for Lisbon", Options: recall.Options{TopK: 5}})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Search with a cancelled context: %v, want context.Canceled", err)
			}
			for _, p := range []string{"recall: ", tc.step} {
				if got, want := strings.Count(err.Error(), p), 1; got != want {
					t.Errorf("error %q holds %q %d times, want %d", err, p, got, want)
				}
			}
		})
	}
}
