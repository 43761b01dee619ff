package observe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mnemo-go/mnemo/journal"
)

// skipRetryKey is the memo key recording that threadID's skip of
// from..to was sent again, once, under model and refused again. It sorts
// outside Skips' key range (…|skipped|…), and an erasure in the thread
// forgets it with its skip (Invalidate).
func skipRetryKey(threadID string, from, to int64, model string) string {
	return fmt.Sprintf("%sskipretried|%d|%d|%s", MemoPrefix(threadID), from, to, model)
}

// retrySkips sends again, once, each of threadID's skips recorded under
// another model than this observer's (Skip.Model; an empty one, recorded
// before the model was kept, counts as another): a different model or
// provider may take the turns. An answer replaces the skip with an
// observation (storeObservation), returned; a refusal of the content
// again is recorded (skipRetryKey) and the range stays skipped, never
// sent again under this model. It reads the thread's skips at each
// observation (one query), until a skip under another model stays,
// refused under this one: then not again in this Observer (skipsTried).
// Nothing is sent while the endpoint's refusal or the thread's observer
// back-off is in force. Any other failure is logged at WARN and tried
// again at the thread's next observation; it never stops Observe. The
// caller holds the thread's lock.
func (o *Observer) retrySkips(ctx context.Context, threadID string) []Observation {
	if !o.backoff.waiting(callObserver, threadID, o.cfg.Now()).IsZero() {
		return nil
	}
	if _, done := o.skipsTried.Load(threadID); done {
		return nil
	}
	skips, err := Skips(ctx, o.cfg.DB, threadID)
	var out []Observation
	model, kept := o.cfg.Model.ID(), false
	for _, sk := range skips {
		if sk.Model == model || err != nil {
			continue
		}
		var obs *Observation
		if obs, err = o.retrySkip(ctx, sk, model); obs != nil {
			out = append(out, *obs)
		}
		kept = kept || obs == nil
	}
	if err != nil {
		o.cfg.Logger.WarnContext(ctx, "the observer could not send again the turns it skipped under another model; tried again at the thread's next observation", "thread", threadID, "err", err)
	} else if kept {
		o.skipsTried.Store(threadID, true)
	}
	return out
}

// retrySkip sends sk's turns again under model (retrySkips): the
// observation that replaced it, or nil and no error when it was sent
// under model before or refused again (recorded), or the failure. As
// before a skip, a refusal is recorded only once the endpoint answered a
// short harmless probe (probeContent): an endpoint refusing every content
// records nothing, and the skip is sent again once it answers.
func (o *Observer) retrySkip(ctx context.Context, sk Skip, model string) (*Observation, error) {
	key := skipRetryKey(sk.ThreadID, sk.FromSeq, sk.ToSeq, model)
	if _, err := o.cfg.Journal.Recorded(ctx, journal.ScopeMemo, key); err == nil {
		return nil, nil
	} else if !errors.Is(err, journal.ErrNotFound) {
		return nil, err
	}
	turns, err := o.rangeTurns(ctx, sk.ThreadID, sk.FromSeq, sk.ToSeq)
	if err != nil {
		return nil, err
	}
	obs, _, err := o.observeTurns(ctx, turns, false)
	if err == nil || kindOf(err) != failContent {
		return obs, err
	}
	if err := o.probeContent(ctx, turns[0], turns[len(turns)-1], err); err != nil {
		return nil, err // refuses every content: not recorded, tried again once it answers
	}
	_, err = o.cfg.Journal.Step(ctx, journal.ScopeMemo, key, func(context.Context) ([]byte, error) {
		if err := o.writable(); err != nil {
			return nil, err
		}
		return json.Marshal(skipRecord{Reason: SkipContentRefused, At: o.cfg.Now().UTC().Truncate(time.Millisecond), Model: model})
	})
	return nil, err
}
