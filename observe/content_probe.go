package observe

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// probeTurn is the one turn of the content probe (probeContent): a short
// harmless user turn no content filter or moderation flags. It is no
// thread's: the probe is never recorded in the journal nor stored.
var probeTurn = Turn{ID: "probe", ThreadID: "probe", Seq: 1, Role: RoleUser, Content: "I drink tea in the morning."}

// A content probe answered stands for the skips within probeFresh after
// it (by Config.Now), probeSkips of them at most, its own included
// (probeMemo).
const (
	probeFresh = time.Minute
	probeSkips = 8
)

// probeMemo is the last content probe answered: when (at) and how many
// skips it still stands for (left). A probe asked for every skip cost a
// call a turn more on a thread whose every turn the endpoint refuses
// (readme72 F6: with the halving, 2,148 calls for 586 turns); one that
// stands for ever would skip every turn for good once the endpoint
// starts refusing every content (an outage): the bounds keep that to at
// most probeSkips-1 turns, within a minute. It lives in the Observer,
// for every thread (the probe is no thread's).
type probeMemo struct {
	mu   sync.Mutex
	at   time.Time
	left int
}

// stands reports whether a probe answered stands for one more skip at
// now, and counts that skip.
func (p *probeMemo) stands(now time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.left <= 0 || now.Before(p.at) || now.Sub(p.at) >= probeFresh {
		return false
	}
	p.left--
	return true
}

// answered records a probe asked at now: answered (ok), it stands for
// the skip it was asked for and probeSkips-1 more; else (refused,
// failed) no probe stands until one is answered.
func (p *probeMemo) answered(now time.Time, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.at, p.left = now, 0
	if ok {
		p.left = probeSkips - 1
	}
}

// probeContent asks the endpoint, before Observe skips turns it refused
// alone for their content (refused, ErrContentRefused), whether it takes
// any content at all: one observer call over probeTurn, unless a probe
// answered within the last minute stands for this skip (probeMemo: at
// most probeSkips skips a probe). A skip is for good (the watermark
// moves past the turns), so it is made only when the endpoint answers
// the probe; an endpoint that refuses every prompt for its content (a
// misconfigured moderation proxy, a provider outage answering 400
// content_filter to everything) would otherwise have every turn of
// every thread skipped. It returns nil when the probe was answered
// (whatever the answer: the endpoint took its content), else the error
// Observe returns in place of the skip, logged and backed off here
// (warnFailed):
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
	if o.probed.stands(o.cfg.Now()) {
		return nil
	}
	_, perr := o.complete(ctx, observerSystem, observerUser([]Turn{probeTurn}))
	o.probed.answered(o.cfg.Now(), perr == nil)
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
