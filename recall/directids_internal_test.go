package recall

import (
	"fmt"
	"testing"
)

// TestDirectIDs checks the ids the lexical channel searches under a
// filter: the allowed turns and the turns before and after them; nil past
// directIDLimit; empty, not nil, when nothing is allowed (the channel
// answers at once instead of widening to every match; nil made it widen).
func TestDirectIDs(t *testing.T) {
	s := &shard{threads: map[string][]*entry{}}
	var prev *entry
	for i := range directIDLimit + 10 {
		e := &entry{doc: Doc{ID: fmt.Sprintf("m%05d", i), ThreadID: "t", Seq: int64(i + 1)}, prev: prev, ord: i}
		if prev != nil {
			prev.next = e
		}
		s.docs.put(e)
		s.threads["t"] = append(s.threads["t"], e)
		prev = e
	}
	query := func(allowed func(*entry) bool) *channelQuery {
		return &channelQuery{s: s, allowed: allowed, restricted: true, slack: -1}
	}
	if ids := directIDs(query(func(*entry) bool { return false })); ids == nil || len(ids) != 0 {
		t.Fatalf("nothing allowed: %v, want an empty non-nil list", ids)
	}
	ids := directIDs(query(func(e *entry) bool { return e.doc.ID == "m00007" }))
	if fmt.Sprint(ids) != "[m00007 m00006 m00008]" {
		t.Fatalf("one allowed: %v, want m00007 and the turns before and after", ids)
	}
	if ids := directIDs(query(func(*entry) bool { return true })); ids != nil {
		t.Fatalf("every message allowed: %d ids, want nil (past directIDLimit)", len(ids))
	}
}
