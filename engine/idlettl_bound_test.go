package engine_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestSetIdleTTLBound: SetIdleTTL refuses a lifetime above MaxIdleTTL
// with a *ValidationError naming idleTtl, leaving the thread's lifetime
// as it was, and stores MaxIdleTTL itself exactly. Before (walk39 #10),
// math.MaxInt64 overflowed in the round-up to a millisecond: stored as
// -9223372036853 and read back as never (IdleTTL -1ns).
func TestSetIdleTTLBound(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	appendUser(t, e, "t1", "r1", "hello")
	if err := e.SetIdleTTL(ctx, "t1", "", 72*time.Hour); err != nil {
		t.Fatal(err)
	}
	for _, ttl := range []time.Duration{math.MaxInt64, engine.MaxIdleTTL + time.Millisecond} {
		err := e.SetIdleTTL(ctx, "t1", "", ttl)
		var ve *engine.ValidationError
		if !errors.As(err, &ve) || ve.Field != "idleTtl" {
			t.Errorf("SetIdleTTL(%d): %v, want a *ValidationError on idleTtl", int64(ttl), err)
		}
		if th, err := e.GetThread(ctx, "t1"); err != nil || th.IdleTTL != 72*time.Hour {
			t.Fatalf("after a refused SetIdleTTL(%d): IdleTTL %v (%v), want 72h kept", int64(ttl), th.IdleTTL, err)
		}
	}
	if err := e.SetIdleTTL(ctx, "t1", "", engine.MaxIdleTTL); err != nil {
		t.Fatalf("SetIdleTTL(MaxIdleTTL): %v", err)
	}
	if th, err := e.GetThread(ctx, "t1"); err != nil || th.IdleTTL != engine.MaxIdleTTL {
		t.Fatalf("IdleTTL %v (%v), want MaxIdleTTL", th.IdleTTL, err)
	}
}
