package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestEachThread: EachThread lists what ListThreads lists, in its order,
// for a resource and for all; from one snapshot, so a thread appended
// while it runs (sorting first) neither repeats nor hides a listed one;
// it returns fn's error as fn gave it and ErrClosed once closed.
func TestEachThread(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		for i := range 7 {
			res := []string{"r", "R", "s"}[i%3]
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: fmt.Sprintf("t%d", i), ResourceID: res,
				Messages: []engine.Message{{Role: engine.RoleUser, Content: "hi"}}}); err != nil {
				t.Fatal(err)
			}
		}
		ids := func(ts []engine.Thread) (out []string) {
			for _, th := range ts {
				out = append(out, th.ID)
			}
			return out
		}
		for _, res := range []string{"", "r", "none"} {
			want, err := e.ListThreads(ctx, res)
			if err != nil {
				t.Fatal(err)
			}
			var got []engine.Thread
			err = e.EachThread(ctx, res, func(th engine.Thread) error {
				if res == "" && len(got) == 0 { // sorts before every listed thread
					if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "new", ResourceID: "A",
						Messages: []engine.Message{{Role: engine.RoleUser, Content: "new"}}}); err != nil {
						return err
					}
				}
				got = append(got, th)
				return nil
			})
			if err != nil || !slices.Equal(ids(got), ids(want)) {
				t.Fatalf("resource %q: %v (%v), want %v", res, ids(got), err, ids(want))
			}
		}
		stop := errors.New("stop")
		n := 0
		if err := e.EachThread(ctx, "", func(engine.Thread) error { n++; return stop }); err != stop || n != 1 {
			t.Fatalf("fn's error: %v after %d threads, want stop after 1", err, n)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if err := e.EachThread(ctx, "", func(engine.Thread) error { return nil }); !errors.Is(err, engine.ErrClosed) {
			t.Fatalf("closed: %v, want ErrClosed", err)
		}
	})
}
