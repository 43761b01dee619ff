package engine

import (
	"context"

	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// This file connects the engine to the derived indexes (package recall).
// The recall wiring (outbox drain, index lifecycle, the recall step) is
// built here; until then recall reports itself unavailable in memctx.

// indexState holds the derived indexes.
type indexState struct{}

// openIndexes opens the derived indexes under the data directory.
func (e *Engine) openIndexes(ctx context.Context) error { return nil }

// closeIndexes closes the derived indexes.
func (e *Engine) closeIndexes() error { return nil }

// kickOutbox wakes the outbox drainer after a commit. It never blocks.
func (e *Engine) kickOutbox() {}

// recallQuery is the recall step's input.
type recallQuery struct {
	Text       string
	ThreadID   string
	ResourceID string
	Options    recall.Options
	Exclude    map[string]bool // message ids already in the prompt (the recent window)
}

// recallTurns runs the recall step of LoadContext: hits and their
// message-range neighbours, ordered by thread and seq.
func (e *Engine) recallTurns(ctx context.Context, q recallQuery) ([]turn, journal.Retrieval, error) {
	return nil, journal.Retrieval{Lexical: "unavailable: no lexical index", Vector: "unavailable: no vector index"}, nil
}
