package main

import (
	"context"
	"fmt"
	"io"

	"github.com/mnemo-go/mnemo/engine"
)

// reservedIDs lists the threads, then the resources, e stores under an id
// beginning with engine.TombstonePrefix ("erased-"), which new data may
// no longer use (engine.ValidNewID) but a data directory written before
// may, each in byte order (engine.ReservedIDs: a range of an index, not a
// walk of every thread); its error is returned.
func reservedIDs(ctx context.Context, e *engine.Engine) ([]dotID, error) {
	threads, resources, err := e.ReservedIDs(ctx)
	if err != nil {
		return nil, err
	}
	found := make([]dotID, 0, len(threads)+len(resources))
	for _, id := range threads {
		found = append(found, dotID{"thread", id})
	}
	for _, id := range resources {
		found = append(found, dotID{"resource", id})
	}
	return found, nil
}

// printReservedIDs is the note of `mnemo check` on the ids reservedIDs
// found: what no longer works under them and what to do.
func printReservedIDs(w io.Writer, found []dotID) {
	if len(found) == 0 {
		return
	}
	fmt.Fprintf(w, "mnemo check: note: %s stored before ids beginning with %q were reserved for erased owners (an erasure's tombstones begin so): "+
		"nothing more can be appended or written under them; the mnemo commands read and erase them "+
		"(mnemo messages --thread, mnemo delete --thread or --resource); a conversation to go on with needs a new id\n",
		joinIDs(found), engine.TombstonePrefix)
}
