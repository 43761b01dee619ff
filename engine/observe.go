package engine

import (
	"context"

	"github.com/mnemo-go/mnemo/journal"
)

// observationsPart renders the live observations and reflections of the
// thread (or resource) for the system part, with their provenance.
// Observational memory is off until configured.
func (e *Engine) observationsPart(ctx context.Context, threadID, resourceID string) (string, []journal.ObservationRef, error) {
	return "", nil, nil
}

// afterAppend runs after an Append that stored messages (background
// observation hooks here). It never blocks.
func (e *Engine) afterAppend(threadID string) {}
