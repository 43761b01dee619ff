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
			// The tails are in the observer's recent window (RecentN 10):
			// Observe observes none of them, even with Force, unless
			// RecentN is smaller, and the hint says so.
			if !errors.As(err, &at) || !slices.Equal(at.Fields, tc.fields) || at.Unobserved != tc.unobserved ||
				at.ObserveDue || at.Observable != 0 || !strings.Contains(err.Error(), "observe the thread with observe.Options.Force under a smaller Config.RecentN") {
				t.Fatalf("err=%v (%+v), want an *AnswerTooLargeError naming %v and %d unobserved messages", err, at, tc.fields, tc.unobserved)
			}
		})
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "short", RecentN: 2}); err != nil {
		t.Fatalf("an unobserved window within the bound: %v", err)
	}
}

// TestAnswerBoundUnobservedDue: when the observer's recent window
// (Config.RecentN 2) leaves turns of the unobserved tail it may observe,
// the error of a window over the bound says how many, and its hint is
// Engine.Observe when they reach ObserveConfig.Threshold (ObserveDue),
// else Observe with Force: under the threshold, Observe without Force
// observes nothing (the hint said "observe the thread" either way). On
// SQLite and Postgres.
func TestAnswerBoundUnobservedDue(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, b enginetest.Backend) {
		for _, tc := range []struct {
			name      string
			threshold int
			due       bool
			hint      string
		}{
			{"Due", 10, true, "observe the thread (Engine.Observe)"},
			{"UnderThreshold", 0, false, "observe the thread with observe.Options.Force (the turns it may observe are under ObserveConfig.Threshold"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ctx := context.Background()
				e := b.MustOpen(t, engine.Config{RecentN: 2, Limits: engine.Limits{MaxAnswerBytes: 2000, MaxContentBytes: 2000},
					Observe: &engine.ObserveConfig{Model: downModel(t), Threshold: tc.threshold, MaxUnobservedTokens: engine.NoUnobservedBound}})
				var texts []string
				for i := range 10 {
					texts = append(texts, fmt.Sprintf("lantern %d ", i)+strings.Repeat("x", 290))
				}
				appendTexts(t, e, "r", "long", texts...) // 3000 bytes, all unobserved
				_, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "long", RecentN: 2})
				var at *engine.AnswerTooLargeError
				if !errors.As(err, &at) || at.Unobserved != 10 || at.ObserveDue != tc.due || at.Observable == 0 ||
					!strings.Contains(err.Error(), tc.hint) {
					t.Fatalf("err=%v (%+v), want ObserveDue %v, observable turns and the hint %q", err, at, tc.due, tc.hint)
				}
			})
		}
	})
}
