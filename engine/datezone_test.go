package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestRelativeDatesInResourceZone: with a resource's time zone configured
// (Config.ResourceTimeZone), the relative dates of its turns and of its
// questions are days of that zone, on either backend and in either mode.
// A turn said at 23:30 in Los Angeles (06:30 UTC the next day) saying
// "yesterday" is about the day before its local date, and a question
// asked at 20:30 there (03:30 UTC the next day) saying "yesterday" means
// the day before its local date. Before, both were resolved in UTC days:
// the turn's "yesterday" was its own local date (its score tied with the
// turn pointing elsewhere) and the question's the local today.
func TestRelativeDatesInResourceZone(t *testing.T) {
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Skipf("no tzdata on this machine: %v", err)
	}
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		clock := time.Date(2023, 6, 1, 12, 0, 0, 0, time.UTC)
		e := be.MustOpen(t, engine.Config{Now: func() time.Time { return clock },
			ResourceTimeZone: func(r string) *time.Location {
				if r == "r" {
					return la
				}
				return nil
			}})
		add := func(thread, content string, at time.Time) {
			t.Helper()
			msgs := []engine.Message{{Role: engine.RoleUser, Content: content, CreatedAt: at},
				{Role: engine.RoleAssistant, Content: "Noted.", CreatedAt: at.Add(time.Minute)}}
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: thread, ResourceID: "r", Messages: msgs}); err != nil {
				t.Fatal(err)
			}
		}
		// Index side: said late in the evening of 8 and 10 May there.
		add("said-8", "We visited the aquarium yesterday with the kids", time.Date(2023, 5, 8, 23, 30, 0, 0, la))
		add("said-10", "We visited the aquarium yesterday with the kids", time.Date(2023, 5, 10, 23, 30, 0, 0, la))
		// Query side: the same words at 10:00 there on 16, 17 and 18 May.
		for _, d := range []int{16, 17, 18} {
			add("day-"+string(rune('0'+d-10)), "We talked about the garden plans and the tomato beds", time.Date(2023, 5, d, 10, 0, 0, 0, la))
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		for _, mode := range []recall.Mode{recall.ModeLexical, recall.ModeHybrid} {
			res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "Where did we go on May 7, 2023?",
				Options: recall.Options{TopK: 2, Mode: mode, Filter: []byte(`{"role":"user"}`)}})
			if err != nil {
				t.Fatal(err)
			}
			score := map[string]float64{}
			for _, h := range res.Hits {
				if h.Reason == recall.ReasonHit {
					score[h.ThreadID] = h.Score
				}
			}
			if got := firstThread(res); got != "said-8" || score["said-8"] <= score["said-10"] {
				t.Errorf("%s, on May 7: first hit in %s, scores %v: want said-8 above said-10", mode, got, score)
			}
			// 20:30 on 17 May there is 03:30 UTC on the 18th.
			at := time.Date(2023, 5, 17, 20, 30, 0, 0, la)
			res, err = e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "What did we talk about yesterday?", At: at,
				Options: recall.Options{TopK: 3, Mode: mode}})
			if err != nil {
				t.Fatal(err)
			}
			if got := firstThread(res); got != "day-6" {
				t.Errorf("%s, asked at %v: first hit in %s, want day-6 (16 May there)", mode, at, got)
			}
		}
	})
}
