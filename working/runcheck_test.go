package working_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mnemo-go/mnemo/working"
)

// TestRunCheck: Config.RunCheck is called for an update under a run id,
// inside the update's write transaction before its statements (it sees
// no version of its run yet, and what it writes through q is rolled back
// with a refused update), and its error refuses the update with nothing
// stored; an update with no run id is not checked.
func TestRunCheck(t *testing.T) { forEachBackend(t, testRunCheck) }

func testRunCheck(t *testing.T, b backend) {
	db, _ := b.openDB(t)
	if _, err := db.Exec(`CREATE TABLE runcheck_probe (run_id TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	errRefused := errors.New("run refused")
	var checked []string
	m := mustNew(t, db, working.Config{Template: "# P\n", RunCheck: func(ctx context.Context, q working.Querier, runID string) error {
		checked = append(checked, runID)
		var n int
		if err := q.QueryRowContext(ctx, `SELECT count(*) FROM working_memory_history WHERE run_id = ?`, runID).Scan(&n); err != nil {
			return err
		}
		if n != 0 {
			t.Errorf("RunCheck of %s sees %d versions of its run, want 0 (called before the write's statements)", runID, n)
		}
		var id string
		if err := q.QueryRowContext(ctx, `INSERT INTO runcheck_probe (run_id) VALUES (?) RETURNING run_id`, runID).Scan(&id); err != nil {
			return err
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
	var probes string
	if err := db.QueryRow(`SELECT min(run_id) || '/' || count(*) FROM runcheck_probe`).Scan(&probes); err != nil {
		t.Fatal(err)
	}
	if probes != "good/1" {
		t.Fatalf("rows RunCheck wrote through q and kept (least/count): %q, want \"good/1\" (the refused update's rolled back with it)", probes)
	}
}
