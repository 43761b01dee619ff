package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestAnswerBoundUnobserved: with observational memory on, the recent
// window holds the whole unobserved tail whatever recentN; when that tail
// passes Limits.MaxAnswerBytes the error names the messages the observer
// has not distilled and no request field (it named recentN, whose
// lowering changes nothing), and recall over what the window leaves names
// recall's fields without recentN. On SQLite and Postgres.
func TestAnswerBoundUnobserved(t *testing.T) {
	enginetest.ForEachBackend(t, answerBoundUnobserved)
}

func answerBoundUnobserved(t *testing.T, b enginetest.Backend) {
	ctx := context.Background()
	e := b.MustOpen(t, engine.Config{Limits: engine.Limits{MaxAnswerBytes: 2000, MaxContentBytes: 2000},
		Observe: &engine.ObserveConfig{Model: downModel(t), MaxUnobservedTokens: engine.NoUnobservedBound}})
	texts := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("lantern %d ", i)+strings.Repeat("x", 290))
		}
		return out
	}
	appendTexts(t, e, "r", "long", texts(10)...) // 3000 bytes, all unobserved
	appendTexts(t, e, "r", "short", texts(6)...) // 1800 bytes
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		req        engine.LoadRequest
		fields     []string
		unobserved int
	}{
		{"Window", engine.LoadRequest{ThreadID: "long", RecentN: 2}, nil, 10},
		{"Recall", engine.LoadRequest{ThreadID: "short", RecentN: 2, Query: "lantern",
			Recall: &recall.Options{TopK: 1, Mode: recall.ModeLexical, Scope: recall.ScopeResource}},
			[]string{"recall.topK", "recall.messageRange"}, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.LoadContext(ctx, tc.req)
			var at *engine.AnswerTooLargeError
			if !errors.As(err, &at) || !slices.Equal(at.Fields, tc.fields) || at.Unobserved != tc.unobserved ||
				!strings.Contains(err.Error(), "observe the thread") {
				t.Fatalf("err=%v (%+v), want an *AnswerTooLargeError naming %v and %d unobserved messages", err, at, tc.fields, tc.unobserved)
			}
		})
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "short", RecentN: 2}); err != nil {
		t.Fatalf("an unobserved window within the bound: %v", err)
	}
}
