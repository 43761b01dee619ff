package observe_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/internal/tokens"
	"github.com/mnemo-go/mnemo/observe"
)

func TestReflectDueCountsAsReflect(t *testing.T) { forEachBackend(t, testReflectDueCountsAsReflect) }

// testReflectDueCountsAsReflect is obs64 item 6: ReflectDue counted the
// stored bytes of a thread's live observations in SQL, Reflect the
// tokens of the rows List gives, which reads pre-obs60 list debris ("- -
// - fact") with one marker a line (d2d0714b): over the threshold stored,
// under it read, ReflectDue said due and Reflect called nothing, at each
// walk (each Open). Now Reflect decides by ReflectDue's count, so the
// two agree.
func testReflectDueCountsAsReflect(t *testing.T, b backend) {
	f := newFakeModel(t, copying(false))
	src := &memSource{}
	src.add("t", 10, user("Ana keeps bees."), user("Rain in Lyon."), assistant(""))
	fact := strings.Repeat("Ana keeps bees near the river. ", 4)
	stored := "- - - - - - " + fact + "\n- - - - - - " + fact
	tidy := "- " + fact + "\n- " + fact
	// Two rows: stored, they hold the threshold; read, they do not.
	threshold := 2*tokens.Text(stored) - 2
	if 2*tokens.Text(tidy) >= threshold {
		t.Fatalf("the rows read hold %d tokens, want fewer than %d", 2*tokens.Text(tidy), threshold)
	}
	e := b.openEnv(t, b.Place(t), src, f.model(t), observe.Config{RecentN: -1, Threshold: 1 << 20, ReflectThreshold: threshold})
	for i, id := range []string{"old1", "old2"} {
		if _, err := store.Bound(e.db).ExecContext(ctx, `INSERT INTO observations (id, thread_id, resource_id, from_seq, to_seq, level, content, sources, untrusted, created_at)
			VALUES (?, 't', 'res-t', ?, ?, ?, ?, '[]', ?, 1)`, id, i+1, i+1, observe.LevelObservation, stored, false); err != nil {
			t.Fatal(err)
		}
	}
	due, err := e.obs.ReflectDue(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.obs.Observe(ctx, "t", observe.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if called := res.Reflection != nil; called != due {
		t.Fatalf("ReflectDue said %v, Observe reflected: %v", due, called)
	}
}
