package observe

import "testing"

// TestRefusedRunsHeld: two skips in a row send the next turns alone; a
// skip not where the last ended starts a new run; a run whose next seq
// is not the chunk's (the watermark moved otherwise) is dropped, not
// held until a restart; an answer (forget) ends it.
func TestRefusedRunsHeld(t *testing.T) {
	var r refusedRuns
	r.skipped("t", 3, 3)
	if r.alone("t", 4) {
		t.Fatal("alone after one skip")
	}
	r.skipped("t", 4, 5)
	if !r.alone("t", 6) {
		t.Fatal("not alone after two skips in a row")
	}
	r.skipped("t", 9, 9) // 6..8 observed elsewhere
	if r.alone("t", 10) {
		t.Fatal("alone after a skip that did not follow the last")
	}
	if r.alone("t", 12) || len(r.m) != 0 {
		t.Fatalf("a run ending at 10 checked at 12: %d held, want it dropped", len(r.m))
	}
	r.skipped("u", 1, 1)
	r.skipped("u", 2, 2)
	r.forget("u")
	if r.alone("u", 3) {
		t.Fatal("alone after forget")
	}
}
