package observe

import (
	"context"
	"errors"
	"sync"
	"time"
)

// First and last wait of the back-off after unusable answers in a row
// (answerBackoff): none after the first (a model may answer better the
// next time), 1 minute after the second, doubled at each further one, at
// most 8.
const (
	firstAnswerBackoff = time.Minute
	maxAnswerBackoff   = 8 * time.Minute
)

// answerBackoff holds, per thread and per call (observer, reflector), the
// back-off after model answers that were unusable (unusableAnswer) twice
// or more in a row. At
// temperature 0 the same chunk gets the same answer, so without it a
// model that always answers badly was called at every observation (one
// call per append with Background, per LoadContext with SyncOnLoad),
// failing the same way (obs62). It lives in the Observer: a restart
// forgets it. Transient failures (ErrModel, ErrCallTimeout) do not back
// off: the next observation tries again, as before.
type answerBackoff struct {
	mu sync.Mutex
	m  map[string]answerFailures // by backoffKey
}

// answerFailures is one thread's call failing: n unusable answers in a
// row, the next call not before until.
type answerFailures struct {
	n     int
	until time.Time
}

// Calls answerBackoff tells apart.
const (
	callObserver  = "observer"
	callReflector = "reflector"
)

func backoffKey(call, threadID string) string { return call + "|" + threadID }

// unusableAnswer reports whether err is an answer the model would give
// again for the same prompt: malformed or empty (ErrMalformedAnswer,
// ErrEmptyAnswer), not a failed or timed-out call.
func unusableAnswer(err error) bool {
	return errors.Is(err, ErrMalformedAnswer) || errors.Is(err, ErrEmptyAnswer)
}

// waiting reports whether call on threadID is backing off at now.
func (b *answerBackoff) waiting(call, threadID string, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	f, ok := b.m[backoffKey(call, threadID)]
	return ok && now.Before(f.until)
}

// failed records an unusable answer of call on threadID at now and
// returns how long the next call waits: nothing after the first in a row,
// then firstAnswerBackoff doubled per failure in a row before it, at most
// maxAnswerBackoff.
func (b *answerBackoff) failed(call, threadID string, now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = make(map[string]answerFailures)
	}
	k := backoffKey(call, threadID)
	f := b.m[k]
	var wait time.Duration
	if f.n > 0 {
		wait = firstAnswerBackoff
		for i := 1; i < f.n && wait < maxAnswerBackoff; i++ {
			wait *= 2
		}
		wait = min(wait, maxAnswerBackoff)
	}
	b.m[k] = answerFailures{n: f.n + 1, until: now.Add(wait)}
	return wait
}

// succeeded forgets the back-off of call on threadID.
func (b *answerBackoff) succeeded(call, threadID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.m, backoffKey(call, threadID))
}

// warnFailed logs, at WARN, call's failure on threadID's range from..to.
// A second unusable answer in a row starts the thread's back-off, and a
// further one lengthens it: the line then names the cause (err), how long
// it waits (retryIn) and what to change. One line per failed call.
func (o *Observer) warnFailed(ctx context.Context, call, threadID string, from, to int64, err error) {
	attrs := []any{"thread", threadID, "fromSeq", from, "toSeq", to, "err", err}
	var wait time.Duration
	if unusableAnswer(err) {
		wait = o.backoff.failed(call, threadID, o.cfg.Now())
	}
	if wait == 0 {
		msg := "observer call failed; will retry later"
		if call == callReflector {
			msg = "reflector call failed; observations stay live"
		}
		o.cfg.Logger.WarnContext(ctx, msg, attrs...)
		return
	}
	msg := "observer answer unusable again; the thread's observer backs off: no call before retryIn, the range stays unobserved (the next usable answer observes all of it; a forced observation or a restart tries at once): use a model that answers the JSON asked for"
	if call == callReflector {
		msg = "reflector answer unusable again; the thread's reflector backs off: no call before retryIn, the observations stay live (a forced reflection or a restart tries at once): use a model that answers the JSON asked for"
	}
	o.cfg.Logger.WarnContext(ctx, msg, append(attrs, "retryIn", wait.String())...)
}
