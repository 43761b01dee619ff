package recall

import (
	"context"
	"errors"
	"testing"
)

// cancelAfter is a context whose Err is context.Canceled from its n+1th
// call on: the cancellation arrives while the work is under way.
type cancelAfter struct {
	context.Context
	n int
}

func (c *cancelAfter) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestDropThreadCancelled: dropping a thread from a shard (catchUp, when a
// message of the snapshot is gone: an erasure's snapshot rewrite) stops
// when its context ends, with an error wrapping context.Canceled, and
// catchUp's caller resets the shard. It removed every message whatever the
// context: 0.5-2.8 s for a thread of 30,000, in a cancelled DeleteMessages.
// The thread here has 1,000 messages, the context ends after the first
// check (dropCheck messages).
func TestDropThreadCancelled(t *testing.T) {
	s := fuzzShard(t, 3000) // threads t0, t1, t2 of 1,000 messages each
	before := len(s.threads["t1"])
	n, err := s.dropThread(&cancelAfter{Context: context.Background(), n: 1}, "t1")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("dropThread with its context ended: n=%d err=%v, want context.Canceled", n, err)
	}
	if got := before - len(s.threads["t1"]); got != dropCheck {
		t.Errorf("removed %d messages before stopping, want %d (one check's worth)", got, dropCheck)
	}
	if n, err := s.dropThread(context.Background(), "t0"); err != nil || n != 1000 || s.threads["t0"] != nil {
		t.Errorf("dropThread: n=%d err=%v, t0 left %d; want 1000 removed", n, err, len(s.threads["t0"]))
	}
}
