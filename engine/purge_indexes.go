package engine

import (
	"context"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/store"
)

// The index part of the physical purge (purge.go) after the erasure of a
// thread or a resource: the indexes of mnemo.db that may keep a piece of
// an erased owner's id are rebuilt, the others are left as they are.
//
// secure_delete zeroes a deleted index entry where it lives, but a page
// split or rebalance earlier left copies of cells in the unused space of
// the page it rewrote (between its cell pointers and its cells), which no
// delete reaches; after DeleteResource, 6-byte pieces of an 8-byte id
// stayed there (TestDeleteResourceLeavesNoIDFragment). Rebuilding an index
// (REINDEX) frees its old pages, which secure_delete zeroes. Rebuilding
// every index cost the whole file (each index is rebuilt from a scan of
// its table), whatever was erased: 10.1 s of 13.5 s for four erasures
// beside a 200,000-record journal. Now every page of every index is read
// (dbstat and sqlite_dbpage, a fraction of the file) and an index is
// rebuilt only when a page of it holds a piece of an erased id (idPieces):
// a leftover copy, or a live key that holds the same bytes (another
// owner's id with the same piece), which the check cannot tell apart. A
// WITHOUT ROWID table (message_calls) is an index b-tree too, searched
// and rebuilt the same way (TestEraseRebuildsCallsHoldingAPiece).

// maxOwnerIDs bounds the erased owners' ids a purge keeps for the index
// check; past it the purge rebuilds every index without searching them.
const maxOwnerIDs = 4096

// ownerIDs are the ids of the erased threads and resources a purge owes
// the index check (whole: an id is at most 128 bytes). over: more than
// maxOwnerIDs, or not known (a purge completed at Open), so every index
// is rebuilt.
type ownerIDs struct {
	ids  []string
	over bool
}

// merge adds q's ids to o's.
func (o *ownerIDs) merge(q ownerIDs) {
	if o.over || q.over || len(o.ids)+len(q.ids) > maxOwnerIDs {
		o.ids, o.over = nil, true
		return
	}
	o.ids = append(o.ids, q.ids...)
}

// pieceMin is the shortest piece of an erased id the index check looks
// for, and pieceMax the longest piece length it needs: a piece of 12 bytes
// of a random 36-character UUID (16^12 values) does not turn up by chance
// in an index of other UUIDs, so longer ids are searched by their 12-byte
// pieces rather than by their halves (a leftover of 12 bytes of a UUID is
// found; it was 18 when the pieces were halves).
const (
	pieceMin = 6
	pieceMax = 12
)

// idPieces returns the pieces of id the index check looks for: every
// substring of half its length, rounded up, at least pieceMin and at most
// pieceMax bytes (the whole id when it is shorter than pieceMin). A copy of an index cell that a later
// write cut short keeps only part of the id (the first or the last bytes,
// where the cut falls). Shorter pieces are not looked for: a piece found
// in a live key of another owner costs the rebuild of its index all the
// same, and the 31 6-byte pieces of a 36-character UUID turn up by chance
// about 28 times in 15 MB of other UUIDs (16^6 values a piece), its
// 12-byte pieces never. An e-mail address's pieces include its domain's
// ("mple.com" of "ana@example.com"), so an index holding another owner
// of that domain is rebuilt: a cost, not a leftover.
func idPieces(id string) [][]byte {
	n := min(len(id), max(pieceMin, min(pieceMax, (len(id)+1)/2)))
	var out [][]byte
	for i := 0; i+n <= len(id); i++ {
		out = append(out, []byte(id[i:i+n]))
	}
	return out
}

// clearIndexes rebuilds the indexes of mnemo.db that may keep a piece of
// one of ids: those whose pages hold one of its pieces (store.IndexesHolding),
// every index when ids.over. It records what it rebuilt for the tests
// (Reindexed).
func (e *Engine) clearIndexes(ctx context.Context, ids ownerIDs) error {
	if ids.over {
		e.recordReindexed([]string{"*"})
		if err := store.Reindex(ctx, e.db); err != nil {
			return fmt.Errorf("%w: reindex: %w", ErrEraseIncomplete, err)
		}
		return nil
	}
	var pieces [][]byte
	for _, id := range ids.ids {
		pieces = append(pieces, idPieces(id)...)
	}
	if len(pieces) == 0 {
		e.recordReindexed(nil)
		return nil
	}
	names, err := store.IndexesHolding(ctx, e.db, containsAny(pieces))
	if err != nil {
		return fmt.Errorf("%w: index check: %w", ErrEraseIncomplete, err)
	}
	e.recordReindexed(names)
	if err := store.ReindexNamed(ctx, e.db, names); err != nil {
		return fmt.Errorf("%w: %w", ErrEraseIncomplete, err)
	}
	return nil
}

// recordReindexed keeps the names of the indexes the last purge rebuilt
// ("*": every index), for the tests.
func (e *Engine) recordReindexed(names []string) {
	e.erasure.mu.Lock()
	defer e.erasure.mu.Unlock()
	e.erasure.reindexed = append([]string{}, names...)
}
