package observe

import (
	"context"
	"errors"
	"fmt"
)

// probeTurn is the one turn of the content probe (probeContent): a short
// harmless user turn no content filter or moderation flags. It is no
// thread's: the probe is never memoized, recorded nor stored.
var probeTurn = Turn{ID: "probe", ThreadID: "probe", Seq: 1, Role: RoleUser, Content: "I drink tea in the morning."}

// probeContent asks the endpoint, before Observe skips turns it refused
// alone for their content (refused, ErrContentRefused), whether it takes
// any content at all: one observer call over probeTurn, not memoized. A
// skip is for good (the watermark moves past the turns), so it is made
// only when the endpoint answers the probe; an endpoint that refuses
// every prompt for its content (a misconfigured moderation proxy, a
// provider outage answering 400 content_filter to everything) would
// otherwise have every turn of every thread skipped. It returns nil when
// the probe was answered (whatever the answer: the endpoint took its
// content), else the error Observe returns in place of the skip, logged
// and backed off here (warnFailed):
//   - the probe refused for its content too: ErrAllContentRefused (which
//     matches ErrModelRefused), wrapping refused; every thread's calls
//     back off as after ErrModelRefused, until a call is answered;
//   - the probe refused for the key, quota or model: its error
//     (ErrModelRefused), every thread's calls backing off;
//   - any other failure (a timeout, a 5xx): whether the endpoint takes
//     other content is unknown: refused, the thread's observer backing
//     off on these turns as on a refused prompt, tried again after.
//
// The turns are first..last's.
func (o *Observer) probeContent(ctx context.Context, first, last Turn, refused error) error {
	_, perr := o.complete(ctx, observerSystem, observerUser([]Turn{probeTurn}))
	var err error
	switch {
	case perr == nil:
		return nil
	case errors.Is(ctx.Err(), context.Canceled):
		return fmt.Errorf("%w; not skipped: the content probe: %w", refused, perr)
	case errors.Is(perr, ErrContentRefused):
		err = fmt.Errorf("%w: %w; then a short harmless probe, refused too: %v", ErrAllContentRefused, refused, perr)
	case errors.Is(perr, ErrModelRefused):
		err = fmt.Errorf("observe %s %d..%d: not skipped: the content probe: %w", first.ThreadID, first.Seq, last.Seq, perr)
	default:
		err = fmt.Errorf("%w; not skipped: the content probe failed, so whether the endpoint refuses every content is unknown: %v", refused, perr)
	}
	o.warnFailed(ctx, callObserver, first.ThreadID, first.Seq, last.Seq, err)
	return err
}
