package observe_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
)

// BenchmarkObserveNothingDue measures Observe of a SQLite thread of 20
// turns with nothing due (no model call): the path every append's
// background observation takes. Since misc72 it reads the thread's skips
// at each call (retrySkips, one query), where an entry per thread kept in
// the Observer for good spared it: 67 -> 92 allocs, 27.2 -> 28.0 kB an
// Observe; CPU over 5,000 calls, 3 alternated runs of the test binary
// under a load of 17-27 on 2 cores: 0.60/0.70/0.72 -> 0.81/0.92/0.79 s
// (about 30 us more a call).
//
//	go test ./observe/ -run '^$' -bench ObserveNothingDue -count 6
func BenchmarkObserveNothingDue(b *testing.B) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(b.TempDir(), "mnemo.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.CloseDB(db)
	src := &memSource{}
	for range 10 {
		src.add("t", 10, user("Ana keeps bees."), assistant("Noted."))
	}
	o, err := observe.New(observe.Config{DB: db, Journal: journal.New(db, nil), Source: src, Model: &observe.OpenAIModel{},
		Threshold: 100000, RecentN: -1})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if res, err := o.Observe(ctx, "t", observe.Options{}); err != nil || res.Pending.PendingTurns != 20 {
			b.Fatalf("Observe: %+v, %v", res, err)
		}
	}
}
