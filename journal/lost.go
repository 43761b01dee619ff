package journal

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
)

// ScopeLost holds one record per seq a salvage could not recover (the
// message was on a damaged page of the database file), keyed
// "<threadId>:<seq>", created at the salvage's time; like an erased seq's
// tombstone (ScopeErased) it tells a known loss from a gap, and seqs are
// never reused. Only ids and seqs are stored, never content.
const ScopeLost = "lost"

// LostRange is a run of consecutive seqs of one thread that a salvage
// lost (ScopeLost records).
type LostRange struct {
	// ThreadID is the thread that lost the turns.
	ThreadID string `json:"threadId"`
	// ResourceID is its resource.
	ResourceID string `json:"resourceId"`
	// FromSeq is the first lost seq (inclusive).
	FromSeq int64 `json:"fromSeq"`
	ToSeq   int64 `json:"toSeq"` // inclusive
	// SalvagedAt is when the salvage recorded the loss (UTC).
	SalvagedAt time.Time `json:"salvagedAt"`
}

// RecordLost records in tx that seq of thread (owned by resource) was lost
// by the salvage of time now (ScopeLost). Recording it twice is a no-op.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func RecordLost(ctx context.Context, tx store.Conn, thread, resource string, seq int64, now time.Time) error {
	if _, err := store.Bound(tx).ExecContext(ctx,
		`INSERT OR IGNORE INTO journal (scope, key, thread_id, resource_id, output, created_at) VALUES (?, ?, ?, ?, x'', ?)`,
		ScopeLost, thread+":"+strconv.FormatInt(seq, 10), thread, resource, now.UnixMilli()); err != nil {
		return fmt.Errorf("journal: record lost seq: %w", err)
	}
	return nil
}

// LostRanges returns the seqs lost to salvages as ranges of consecutive
// seqs of one thread recorded by the same salvage, ordered by thread and
// seq; nil when none is.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it; engine.Engine.LostSeqs reads these.
func LostRanges(ctx context.Context, q store.Conn) ([]LostRange, error) {
	rows, err := store.Bound(q).QueryContext(ctx,
		`SELECT thread_id, resource_id, key, created_at FROM journal WHERE scope = ?`, ScopeLost)
	if err != nil {
		return nil, fmt.Errorf("journal: lost seqs: %w", err)
	}
	defer rows.Close()
	var seqs []LostRange
	for rows.Next() {
		var r LostRange
		var key string
		var ms int64
		if err := rows.Scan(&r.ThreadID, &r.ResourceID, &key, &ms); err != nil {
			return nil, fmt.Errorf("journal: lost seqs: %w", err)
		}
		seq, err := strconv.ParseInt(key[strings.LastIndexByte(key, ':')+1:], 10, 64)
		if err != nil {
			continue // not a key RecordLost wrote
		}
		r.FromSeq, r.ToSeq, r.SalvagedAt = seq, seq, time.UnixMilli(ms).UTC()
		seqs = append(seqs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: lost seqs: %w", err)
	}
	return mergeLost(seqs), nil
}

// mergeLost sorts single-seq ranges and joins consecutive ones of a
// thread recorded at the same time.
func mergeLost(seqs []LostRange) []LostRange {
	sortLost(seqs)
	var out []LostRange
	for _, r := range seqs {
		if n := len(out); n > 0 {
			last := &out[n-1]
			if last.ThreadID == r.ThreadID && last.ToSeq+1 == r.FromSeq && last.SalvagedAt.Equal(r.SalvagedAt) {
				last.ToSeq = r.ToSeq
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

func sortLost(seqs []LostRange) {
	slices.SortFunc(seqs, func(a, b LostRange) int {
		return cmp.Or(strings.Compare(a.ThreadID, b.ThreadID), cmp.Compare(a.FromSeq, b.FromSeq))
	})
}
