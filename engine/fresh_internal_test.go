package engine

import (
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/internal/msgstore"
)

// TestFreshRowsWhenFull: a full cache keeps the rows it holds (the oldest,
// which a drainer behind takes next) and refuses new ones; a refused row
// drops the row held for its id (an id reused after an erasure must not get
// the old row back); rows nobody takes do not block it for good. Before, a
// full cache started over and dropped the rows the drainer needed next.
func TestFreshRowsWhenFull(t *testing.T) {
	var f freshRows
	no := func(int) bool { return false }
	batch := func(prefix string, from, n int, content string) []msgstore.Message {
		out := make([]msgstore.Message, n)
		for i := range out {
			out[i] = msgstore.Message{ID: fmt.Sprintf("%s%05d", prefix, from+i), Content: content}
		}
		return out
	}
	for i := 0; i < freshMax; i += 16 {
		f.put(batch("old", i, 16, "v1"), no)
	}
	f.put(batch("new", 0, 10, "v1"), no)
	f.put(batch("old", 3, 1, "v2"), no) // old00003 appended again (its first erased)
	if len(f.rows) > freshMax {
		t.Errorf("%d rows held, more than freshMax", len(f.rows))
	}
	got := f.take([]string{"old00000", "old00003"})
	if got["old00000"].Content != "v1" {
		t.Errorf("the oldest row was dropped when the cache filled")
	}
	if m, ok := got["old00003"]; ok && m.Content != "v2" {
		t.Errorf("old00003: the cache handed %q, the row of the erased message", m.Content)
	}
	// Space freed by the take is used again.
	f.put(batch("next", 0, 1, "v1"), no)
	if got := f.take([]string{"next00000"}); got["next00000"].Content != "v1" {
		t.Errorf("a row put after a take was refused")
	}
	// Rows never taken: after freshMax refused rows it starts over.
	f.put(batch("fill", 0, 2, "v1"), no)
	for i := 0; i <= freshMax; i += 16 {
		f.put(batch("late", i, 16, "v1"), no)
	}
	f.put(batch("last", 0, 1, "v1"), no)
	if got := f.take([]string{"last00000"}); got["last00000"].Content != "v1" {
		t.Errorf("a cache full of rows nobody takes refused rows for good")
	}
}
