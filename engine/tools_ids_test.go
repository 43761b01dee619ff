package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/working"
)

// TestToolsIDs: Tools refuses a thread or resource id no thread can have
// with a *ValidationError naming it. Tools(ctx, "a\x00", "r") returned a
// registry bound to that id; "" failed as `invalid threadId: working
// memory: working: invalid scope key: …`.
func TestToolsIDs(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{WorkingMemory: &working.Config{Template: "# Notes\n"}})
	for _, c := range []struct{ name, thread, resource, field string }{
		{"EmptyThread", "", "r", "threadId"},
		{"NULThread", "a\x00", "r", "threadId"},
		{"LongThread", strings.Repeat("t", 129), "r", "threadId"},
		{"NULResource", "t", "r\x00", "resourceId"},
	} {
		_, err := e.Tools(ctx, c.thread, c.resource)
		var ve *engine.ValidationError
		if !errors.As(err, &ve) || ve.Field != c.field || !errors.Is(err, engine.ErrInvalidInput) {
			t.Errorf("%s: %v, want a *ValidationError on %s", c.name, err, c.field)
		}
	}
	if reg, err := e.Tools(ctx, "t-new", "r"); err != nil || reg == nil {
		t.Fatalf("a new thread's tools: %v, %v", reg, err)
	}
}
