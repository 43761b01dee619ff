package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
)

// replayObservation is an observation as a run rendered it.
type replayObservation struct {
	ref journal.ObservationRef
	obs observe.Observation
}

func renderObservations(obs []replayObservation, loc *time.Location) string {
	list := make([]observe.Observation, len(obs))
	for i, o := range obs {
		list[i] = o.obs
	}
	return observe.Render(list, loc)
}

// replayObservationBatch is the most observation ids one query of
// replayObservations names, well under SQLite's and Postgres's bound on a
// statement's parameters.
const replayObservationBatch = 500

// replayObservations fetches the observations rec lists, retired ones
// included (a reflection retires its sources; they stay traceable). An
// observation that is gone or was invalidated by erasure is a divergence.
func (e *Engine) replayObservations(ctx context.Context, rec *journal.MemCtx, div *DivergenceError) ([]replayObservation, error) {
	if len(rec.Observations) == 0 {
		return nil, nil
	}
	// Only the observations the record names are read (retired or
	// invalidated since, to say so), not every one the thread ever had:
	// replay returns no other.
	named := map[string][]string{} // thread → ids
	var threads []string
	for _, r := range rec.Observations {
		if _, ok := named[r.ThreadID]; !ok {
			threads = append(threads, r.ThreadID)
		}
		named[r.ThreadID] = append(named[r.ThreadID], r.ID)
	}
	byID := map[string]observe.Observation{}
	for _, thread := range threads {
		for ids := range slices.Chunk(named[thread], replayObservationBatch) {
			found, err := observe.List(ctx, e.db, observe.Filter{ThreadID: thread, All: true, IDs: ids})
			if err != nil {
				return nil, fmt.Errorf("engine: replay %s: %w", rec.RunID, err)
			}
			for _, o := range found {
				byID[o.ID] = o
			}
		}
	}
	out := make([]replayObservation, 0, len(rec.Observations))
	for _, r := range rec.Observations {
		o, ok := byID[r.ID]
		switch {
		case !ok:
			div.Differences = append(div.Differences, fmt.Sprintf("observation %s is no longer stored", r.ID))
		case o.InvalidatedAt != nil:
			div.Differences = append(div.Differences, fmt.Sprintf("observation %s was invalidated (a turn it was distilled from was erased)", r.ID))
		default:
			out = append(out, replayObservation{ref: r, obs: o})
		}
	}
	return out, nil
}
