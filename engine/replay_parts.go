package engine

import (
	"context"
	"fmt"

	"github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
)

// replayObservation is an observation as a run rendered it.
type replayObservation struct {
	ref journal.ObservationRef
	obs observe.Observation
}

func renderObservations(obs []replayObservation) string {
	list := make([]observe.Observation, len(obs))
	for i, o := range obs {
		list[i] = o.obs
	}
	return observe.Render(list)
}

// replayObservations fetches the observations rec lists, retired ones
// included (a reflection retires its sources; they stay traceable). An
// observation that is gone or was invalidated by erasure is a divergence.
func (e *Engine) replayObservations(ctx context.Context, rec *journal.MemCtx, div *DivergenceError) ([]replayObservation, error) {
	if len(rec.Observations) == 0 {
		return nil, nil
	}
	byID := map[string]observe.Observation{}
	seen := map[string]bool{}
	for _, r := range rec.Observations {
		if seen[r.ThreadID] {
			continue
		}
		seen[r.ThreadID] = true
		all, err := observe.List(ctx, e.db, observe.Filter{ThreadID: r.ThreadID, All: true})
		if err != nil {
			return nil, fmt.Errorf("engine: replay %s: %w", rec.RunID, err)
		}
		for _, o := range all {
			byID[o.ID] = o
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

// replayWorkingMemory renders the working memory as it stood when the run
// was composed, and the tools the context offered.
func (e *Engine) replayWorkingMemory(ctx context.Context, rec *journal.MemCtx, div *DivergenceError) (string, []openai.Tool, error) {
	_, tools, _, err := e.workingMemoryPart(ctx, rec.ThreadID, rec.ResourceID)
	if err != nil {
		return "", nil, err
	}
	if rec.WorkingMemoryChars > 0 {
		div.Differences = append(div.Differences, "working memory cannot be rebuilt yet")
	}
	return "", tools, nil
}
