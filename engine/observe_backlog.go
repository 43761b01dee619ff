package engine

import (
	"context"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/observe"
)

// This file finds, when the background observer starts, the threads whose
// unobserved turns (or live observations: a reflection not made) were left
// over the threshold by an earlier process (one killed or closed while its
// model failed, hung or was behind): Append
// queues a thread only when it stores, so a thread nobody appends to after
// a crash was never observed, and the others waited for their next append.

// backlogPage is how many threads the backlog walk reads a query, and so
// at most how many it considers between two looks at the append queue.
const backlogPage = 100

// backlog walks every thread a page at a time (msgstore.ThreadsAfter, one
// range of threads_by_order), in the background loop after Open, and
// yields the threads that may be due. A thread may be due when more than
// RecentN of its messages follow its observed watermark and those hold at
// least the observer's Threshold in estimated tokens (summed in SQL): a
// necessary condition of observe.Plan's Due, which the observation itself
// decides; or when the reflector is due (observe.Observer.ReflectDue,
// summed in SQL too: its live observations hold at least the
// ReflectThreshold, a quarter of it in observations not yet reflected). Open reads nothing for it.
type backlog struct {
	e     *Engine
	after *msgstore.ThreadKey // the last thread read; nil before the first page
	due   []string            // the due threads of the page read, not yet yielded
	done  bool                // every thread was read, or a read failed
	found int                 // threads yielded
}

// next returns the next thread that may be due, or "" when the page read
// held none (more is then true: call again) or the walk is over (more
// false). A failed read ends the walk with a warning: the threads not
// reached wait for their next append, as they did before.
func (b *backlog) next(ctx context.Context) (threadID string, more bool) {
	if len(b.due) == 0 && !b.done {
		if err := b.read(ctx); err != nil {
			b.done = true
			if ctx.Err() == nil {
				b.e.log.Warn("background observer: looking for threads left unobserved failed; they are observed after their next append", "err", err)
			}
		}
	}
	if len(b.due) == 0 {
		if b.done && b.found > 0 {
			b.e.log.Info("background observer: queued the threads left unobserved", "threads", b.found)
			b.found = 0
		}
		return "", !b.done
	}
	threadID, b.due = b.due[0], b.due[1:]
	b.found++
	return threadID, true
}

// read reads the next page of threads into b.due.
func (b *backlog) read(ctx context.Context) error {
	page, err := b.e.ms.ThreadsAfter(ctx, nil, b.after, backlogPage)
	if err != nil {
		return err
	}
	if len(page) < backlogPage {
		b.done = true
	}
	if len(page) > 0 {
		k := page[len(page)-1].Key()
		b.after = &k
	}
	for _, t := range page {
		due, err := b.e.mayBeDue(ctx, t)
		if err != nil {
			return err
		}
		if due {
			b.due = append(b.due, t.ID)
		}
	}
	return nil
}

// mayBeDue reports whether the observer or the reflector may be due on
// thread t: the reflector's condition is checked too, so a reflection an
// earlier process left undone (it stopped between observing and
// reflecting) is made without waiting for the observer to be due again.
func (e *Engine) mayBeDue(ctx context.Context, t msgstore.Thread) (bool, error) {
	due, err := e.observerMayBeDue(ctx, t)
	if err != nil || due {
		return due, err
	}
	return e.obs.obs.ReflectDue(ctx, t.ID)
}

// observerMayBeDue reports whether the observer may be due on thread t:
// more than RecentN messages after its watermark (seqs only grow, so
// LastSeq bounds their count), holding at least the Threshold in tokens.
func (e *Engine) observerMayBeDue(ctx context.Context, t msgstore.Thread) (bool, error) {
	recentN := int64(e.cfg.RecentN)
	if t.LastSeq <= recentN {
		return false, nil
	}
	wm, err := observe.Watermark(ctx, e.db, t.ID)
	if err != nil || t.LastSeq-wm <= recentN {
		return false, err
	}
	n, tokens, err := e.ms.CountTokensAfter(ctx, t.ID, wm)
	if err != nil {
		return false, err
	}
	threshold := e.cfg.Observe.Threshold
	if threshold <= 0 {
		threshold = observe.DefaultThreshold
	}
	return n > e.cfg.RecentN && tokens >= threshold, nil
}
