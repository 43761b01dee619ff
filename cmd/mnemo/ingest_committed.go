package main

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/mnemo-go/mnemo/engine"
)

// committed counts the messages one ingest stored, over every FILE, as
// each Append returns: those are committed, and stay whatever ends the
// process. A process stopped at once (a second Ctrl-C, or the grace after
// the first passed) says them (line), where it exited with no word of
// what was stored.
type committed struct {
	stored atomic.Int64
	// check is the check command to name, as the user's own command named
	// the memory (target.mnemo): "mnemo check" or "mnemo --dir DIR check".
	check string
}

// line is what an ingest stopped at once says: the messages it stored,
// that running it again stores the rest, and that some may not be
// embedded yet (it stops without counting them, as a graceful stop does:
// Main.unindexed).
func (n *committed) line() string {
	return fmt.Sprintf("stopped at once: %s stored by this ingest, committed: they stay (the batch being stored as it stopped may be stored too); run the same ingest again to store the rest (messages already stored are not stored twice); some stored messages may have no embedding yet (search finds them by their words only until then): that ingest run again, or %s, embeds them",
		count(n.stored.Load(), "message"), n.check)
}

// indexing is what an ingest stopped at once while indexing says:
// everything is stored.
func (n *committed) indexing() string {
	return fmt.Sprintf("stopped at once while indexing: every message is stored (%s by this ingest); the next command that writes or searches, or %s, indexes the rest",
		count(n.stored.Load(), "message"), n.check)
}

// countingAppender is the engine an ingest imports through: its Append
// adds what each call committed to n. The engine's other methods (the
// importer's WorkingMemoryOpener, DispatchRestorer, IdleTTLSetter) are
// the engine's own.
type countingAppender struct {
	*engine.Engine
	n *committed
}

// Append is engine.Engine.Append, counting the messages it stored.
func (a countingAppender) Append(ctx context.Context, req engine.AppendRequest) (*engine.AppendResult, error) {
	res, err := a.Engine.Append(ctx, req)
	if err == nil {
		a.n.stored.Add(int64(res.Stored))
	}
	return res, err
}
