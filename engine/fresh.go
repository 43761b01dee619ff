package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mnemo-go/mnemo/internal/msgstore"
)

// freshMax bounds the messages freshRows holds: about 16 MB of chat turns
// (they are the strings the appends allocated anyway). A drainer further
// behind than this reads the rest back from SQLite.
const freshMax = 16384

// freshRows holds the rows of messages appended on SQLite and not yet
// handed to the outbox drainer, as Append stored them, so that the drainer
// indexes them without reading them back (issue 14: reading them was 4.5 %
// of the ingest's CPU at 100k). It is a cache, never the truth: the
// drainer takes a row only for a message its outbox names and that
// StoredIDs finds stored, so an erasure between the append and the drain
// still wins (an erased message is not stored; its id reused by a later
// append was put again by that append, in commit order: puts happen inside
// the write transaction, and a put the cache refuses drops the row it held
// for that id). Dropping entries is always safe: the drainer reads what it
// does not find.
//
// When full it keeps what it holds and refuses new rows: the drainer takes
// rows in outbox order, so the rows held are the next it needs (starting
// over dropped exactly those, and a drainer behind by more than freshMax
// read every row back). Rows never taken (a message erased before its
// drain) could fill it for good: after freshMax refused rows with no row
// taken meanwhile it starts over.
//
// It is safe for concurrent use.
type freshRows struct {
	mu      sync.Mutex
	rows    map[string]msgstore.Message
	refused int // rows refused since a row was last taken
}

// put records msgs (rows of messages being stored by the caller's write
// transaction), or drops the rows held for their ids when the cache is full.
func (f *freshRows) put(msgs []msgstore.Message, truncated func(i int) bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rows != nil && len(f.rows)+len(msgs) > freshMax && f.refused < freshMax {
		f.refused += len(msgs)
		for _, m := range msgs {
			delete(f.rows, m.ID)
		}
		return
	}
	if f.rows == nil || len(f.rows)+len(msgs) > freshMax {
		f.rows = make(map[string]msgstore.Message, min(freshMax, 2*len(f.rows)+len(msgs)))
		f.refused = 0
	}
	for i, m := range msgs {
		// As the read path returns it: milliseconds, UTC (scanMessage),
		// and Truncated when a full result went to message_blobs.
		m.CreatedAt = time.UnixMilli(m.CreatedAt.UnixMilli()).UTC()
		m.Truncated = truncated(i)
		f.rows[m.ID] = m
	}
}

// forget drops ids (their append failed or was rolled back).
func (f *freshRows) forget(ids []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range ids {
		delete(f.rows, id)
	}
}

// take removes and returns the rows held for ids.
func (f *freshRows) take(ids []string) map[string]msgstore.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out map[string]msgstore.Message
	for _, id := range ids {
		if m, ok := f.rows[id]; ok {
			if out == nil {
				out = make(map[string]msgstore.Message, len(ids))
			}
			out[id] = m
			delete(f.rows, id)
			f.refused = 0
		}
	}
	return out
}

// messagesToIndex returns the stored messages of ids, in the order of ids,
// those not stored left out (as MessagesByID), and their rows as read
// (rows[i] is msgs[i]'s): the rows the appends handed over (freshRows) for
// the messages still stored, the others read. The drainer guards the
// vectors it computes with the rows (msgstore.SourceOf).
func (e *Engine) messagesToIndex(ctx context.Context, ids []string) (msgs []Message, rows []msgstore.Message, err error) {
	if rows, err = e.rowsToIndex(ctx, ids); err != nil {
		return nil, nil, err
	}
	if msgs, err = messagesFromRows(rows, nil); err != nil {
		return nil, nil, fmt.Errorf("engine: %w", err)
	}
	return msgs, rows, nil
}

// rowsToIndex is messagesToIndex's read: the rows of the stored messages
// of ids, in the order of ids.
func (e *Engine) rowsToIndex(ctx context.Context, ids []string) ([]msgstore.Message, error) {
	held := e.idx.fresh.take(ids)
	if len(held) == 0 {
		rs, err := e.ms.MessagesByID(ctx, "", ids)
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		return rs, nil
	}
	stored, err := e.ms.StoredIDs(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	var missing []string
	for _, id := range ids {
		if _, ok := held[id]; !ok && stored[id] {
			missing = append(missing, id)
		}
	}
	read := map[string]msgstore.Message{}
	if len(missing) > 0 {
		rs, err := e.ms.MessagesByID(ctx, "", missing)
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		for _, r := range rs {
			read[r.ID] = r
		}
	}
	out := make([]msgstore.Message, 0, len(ids))
	for _, id := range ids {
		r, ok := held[id]
		if !ok {
			r, ok = read[id]
		}
		if !ok || !stored[id] {
			continue
		}
		out = append(out, r)
	}
	return out, nil
}
