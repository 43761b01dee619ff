package engine

import (
	"context"
	"fmt"
	"time"
)

// pruneAged applies Config.Retention.MaxAge across every thread (of
// req.ResourceID's runs when it is set) for Expire: the memctx records
// created before now minus MaxAge go (journal.PruneAged, in batches), also
// those of a thread that loads no context again, which LoadContext's own
// pruning never reaches. In a dry run it counts them instead. It returns
// how many; 0 when MaxAge is not set.
func (e *Engine) pruneAged(ctx context.Context, req ExpireRequest, now time.Time) (int64, error) {
	maxAge := e.cfg.Retention.MaxAge
	if maxAge <= 0 {
		return 0, nil
	}
	cutoff := now.Add(-maxAge).UnixMilli()
	var n int64
	var err error
	if req.DryRun {
		n, err = e.journal.CountAged(ctx, cutoff, req.ResourceID)
	} else {
		n, err = e.journal.PruneAged(ctx, cutoff, req.ResourceID)
	}
	if err != nil && ctx.Err() == nil {
		err = fmt.Errorf("engine: expire: %w", err)
	}
	return n, err
}
