package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestEraseNewestKeepsNoTime: after DeleteMessages of a thread's newest
// message, the thread's UpdatedAt (mnemo threads' LAST MESSAGE) is the
// newest kept message's time, and the thread's CreatedAt once none is
// kept. Before, ShrinkThread recomputed the count and bytes but left
// updated_at at the erased message's time (fix40's reading of
// internal/msgstore/erase.go; salvage had the same, 86cafd4).
func TestEraseNewestKeepsNoTime(t *testing.T) {
	enginetest.ForEachBackendParallel(t, func(t *testing.T, b enginetest.Backend) {
		ctx := context.Background()
		e := b.MustOpen(t, engine.Config{})
		t1 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		t2 := t1.Add(26 * time.Hour)
		ar, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
			{Role: "user", Content: "I fly to Oslo on Monday.", CreatedAt: t1},
			{Role: "user", Content: "The door code is 4471.", CreatedAt: t2},
		}})
		if err != nil {
			t.Fatal(err)
		}
		updatedAt := func() (time.Time, time.Time) {
			th, err := e.GetThread(ctx, "t")
			if err != nil {
				t.Fatal(err)
			}
			return th.UpdatedAt, th.CreatedAt
		}
		if got, _ := updatedAt(); !got.Equal(t2) {
			t.Fatalf("UpdatedAt before the erasure = %v, want %v", got, t2)
		}
		if _, err := e.DeleteMessages(ctx, ar.IDs[1]); err != nil {
			t.Fatal(err)
		}
		if got, _ := updatedAt(); !got.Equal(t1) {
			t.Fatalf("UpdatedAt after erasing the newest message = %v, want the kept one's %v", got, t1)
		}
		if _, err := e.DeleteMessages(ctx, ar.IDs[0]); err != nil {
			t.Fatal(err)
		}
		if got, created := updatedAt(); !got.Equal(created) {
			t.Fatalf("UpdatedAt with no message kept = %v, want the thread's CreatedAt %v", got, created)
		}
	})
}
