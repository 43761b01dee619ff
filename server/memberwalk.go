package server

import (
	"context"
	"fmt"
)

// walkCheckEvery is how many members a memberWalk visits between two
// looks at its context. A visit decodes the member once more (an object
// into its members, an array into its elements), so a request's worst
// body (4 MiB of nested tool calls) made about a second of walking after
// its client had gone; 64 visits of a body's members cost well under a
// millisecond.
const walkCheckEvery = 64

// memberWalk is one walk over the members of a JSON body (badField,
// caseVariant, nullOrMissing) that gives up once its context is done:
// each visit counts, and every walkCheckEvery visits ctx is looked at. A
// walk that gave up finds nothing (its functions return "") and err says
// why. A walk is not for concurrent use.
type memberWalk struct {
	ctx context.Context
	n   int   // members visited
	err error // ctx's error once the walk gave up
}

// newWalk returns a walk bounded by ctx.
func newWalk(ctx context.Context) *memberWalk { return &memberWalk{ctx: ctx} }

// unboundedWalk returns a walk of what the process reads itself (the
// token file, mnemo serve's --config, an MCP tool's arguments), which no
// request's context bounds.
func unboundedWalk() *memberWalk { return newWalk(context.Background()) }

// stop counts a visit and reports whether the walk has given up.
func (w *memberWalk) stop() bool {
	if w.err != nil {
		return true
	}
	if w.n++; w.n%walkCheckEvery == 0 {
		w.err = w.ctx.Err()
	}
	return w.err != nil
}

// stopped is the error of a walk that gave up (nil when it did not),
// wrapping ctx's error so that errors.Is matches it.
func (w *memberWalk) stopped() error {
	if w.err == nil {
		return nil
	}
	return fmt.Errorf("server: the check of the body's members stopped after %d members: %w", w.n, w.err)
}
