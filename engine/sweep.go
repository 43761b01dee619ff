package engine

import (
	"context"
	"fmt"
	"time"
)

// A sweep erases several threads or resources (Expire, quota eviction, an
// Append that expires its own thread and then evicts others), each in its
// own erasure transaction as DeleteThread does, and runs the physical
// purge (completeErasures: index removal, segment merge, index rebuild,
// WAL checkpoint, residue check) once at the end for all of them. Each
// transaction writes its erasure marker, so a crash or a cancellation
// before the purge finished loses nothing: the next erasure of the engine
// or, at the latest, Open completes the purge of every marker left.

// sweep collects the erasures whose purge is owed until finish.
type sweep struct {
	e    *Engine
	owed purgeSet
	done []swept
}

// swept is one erasure of a sweep, for its event.
type swept struct {
	kind   eraseKind
	target string
	opts   eraseOpts
	res    *EraseResult
}

func (e *Engine) newSweep() *sweep { return &sweep{e: e} }

// erase runs one erasure transaction (eraseFenced); its physical purge is
// owed until finish, unless it changed no row (EraseResult.noop). The
// observer forgets the back-offs of the threads it touched
// (forgetBackoffs). The
// result's Purge, IndexesRebuilt and Vacuumed are set by finish.
func (s *sweep) erase(ctx context.Context, kind eraseKind, targets []string, opts eraseOpts) (*EraseResult, error) {
	res, err := s.e.eraseFenced(ctx, kind, targets, opts.guard)
	if err != nil {
		return nil, err
	}
	s.e.forgetBackoffs(res.touched)
	if res.noop {
		return res, nil // nothing stored was erased: no purge owed, no event
	}
	s.e.kickOutbox()
	s.owed.add(purgeOf(kind, res))
	res.residue = residue{} // s.owed holds it now (a sweep of many threads keeps one bounded set)
	s.done = append(s.done, swept{kind: kind, target: targets[0], opts: opts, res: res})
	return res, nil
}

// finish runs the physical purge of the sweep's erasures once (nothing
// when it erased nothing), sets each result's Purge (the whole purge's
// duration), IndexesRebuilt and Vacuumed, and publishes each erasure's events. When
// ctx is done already the purge is not started: the erasures stay done,
// their purge is owed (the next erasure or Open completes it) and the
// error is ErrEraseIncomplete with ctx's error. When Close overlapped the
// purge, the error matches ErrClosed too (the next Open completes the
// purge). Errors: ErrEraseIncomplete.
func (s *sweep) finish(ctx context.Context) error {
	if len(s.done) == 0 {
		return nil
	}
	start := time.Now()
	var err error
	var vacuumed Vacuum
	if cerr := ctx.Err(); cerr != nil {
		s.e.owe(s.owed)
		err = fmt.Errorf("%w: %w", ErrEraseIncomplete, cerr)
	} else {
		vacuumed, err = s.e.completeErasures(ctx, s.owed)
	}
	if err != nil && s.e.checkClosed() != nil {
		// Close overlapped the purge and closed the index or the
		// database under it: the purge is owed to the next Open (the
		// markers and outbox rows stay stored).
		err = fmt.Errorf("%w: %w", ErrClosed, err)
	}
	took := time.Since(start)
	rebuilt := err == nil && !s.e.onPostgres()
	for _, d := range s.done {
		d.res.Purge = took
		d.res.IndexesRebuilt = rebuilt && purgeOf(d.kind, d.res).owners
		d.res.Vacuumed = vacuumed
		s.e.publishErased(d.kind, d.target, d.opts, d.res, err)
	}
	s.done, s.owed = nil, purgeSet{}
	return err
}

// finishLogged is finish for a caller whose own work succeeded whatever
// the purge (an Append, a LoadContext): a purge that did not finish is
// logged, and owed (completeErasures).
func (s *sweep) finishLogged(ctx context.Context, what string) {
	if err := s.finish(ctx); err != nil {
		s.e.log.Warn(what+": physical purge of expired or evicted threads incomplete", "err", err)
	}
}
