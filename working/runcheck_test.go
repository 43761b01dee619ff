package working_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mnemo-go/mnemo/working"
)

// TestRunCheck: Config.RunCheck is called for an update under a run id,
// inside the update's write transaction after its statements (it reads
// the version being written), and its error refuses the update with
// nothing stored; an update with no run id is not checked.
func TestRunCheck(t *testing.T) { forEachBackend(t, testRunCheck) }

func testRunCheck(t *testing.T, b backend) {
	db, _ := b.openDB(t)
	errRefused := errors.New("run refused")
	var checked []string
	m := mustNew(t, db, working.Config{Template: "# P\n", RunCheck: func(ctx context.Context, q working.Querier, runID string) error {
		checked = append(checked, runID)
		var n int
		if err := q.QueryRowContext(ctx, `SELECT count(*) FROM working_memory_history WHERE run_id = ?`, runID).Scan(&n); err != nil {
			return err
		}
		if n != 1 {
			t.Errorf("RunCheck of %s sees %d versions of its run, want 1 (its own, in the write's transaction)", runID, n)
		}
		if runID == "bad" {
			return errRefused
		}
		return nil
	}})
	ctx := context.Background()
	key := working.ThreadKey("t")
	if _, err := m.Set(ctx, key, "# P\n- City: Lyon\n", working.Origin{RunID: "bad", ToolCallID: "c1"}); !errors.Is(err, errRefused) {
		t.Fatalf("Set under a refused run: %v, want its RunCheck error", err)
	}
	if st, err := m.Get(ctx, key); err != nil || st.Version != 0 {
		t.Fatalf("state after the refused update: v%d, %v; want nothing stored", st.Version, err)
	}
	if _, err := m.Set(ctx, key, "# P\n- Mood: fine\n", working.Origin{RunID: "good", ToolCallID: "c1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Set(ctx, key, "# P\n- Mood: calm\n", working.Origin{}); err != nil {
		t.Fatal(err)
	}
	if st, err := m.Get(ctx, key); err != nil || st.Version != 2 {
		t.Fatalf("state: v%d, %v; want v2", st.Version, err)
	}
	if len(checked) != 2 || checked[0] != "bad" || checked[1] != "good" {
		t.Fatalf("RunCheck called for %q, want [bad good]", checked)
	}
}
