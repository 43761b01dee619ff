package msgstore

import (
	"context"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/store"
)

// This file holds the reads of the erasure fence (engine/fence.go): which
// threads and resources an erasure will touch, read before its transaction
// so that it can hold their keys. They read the pool, not a transaction:
// the erasure re-checks inside its transaction and widens when it finds
// more.

// ThreadRef names a thread and the resource that owns it.
type ThreadRef struct{ ThreadID, ResourceID string }

// MessageThreads returns the thread and resource of the stored messages
// among ids (any number), each pair once per chunk of store.ChunkSize ids;
// ids that are not stored add nothing.
func (s *Store) MessageThreads(ctx context.Context, ids []string) ([]ThreadRef, error) {
	var out []ThreadRef
	err := store.InChunks(ids, func(in string, args []any) error {
		refs, err := s.threadRefs(ctx, `SELECT DISTINCT thread_id, resource_id FROM messages WHERE id IN `+in, args...)
		out = append(out, refs...)
		return err
	})
	return out, err
}

// ThreadRefs returns threadID with its resource, or none when the thread is
// not stored.
func (s *Store) ThreadRefs(ctx context.Context, threadID string) ([]ThreadRef, error) {
	return s.threadRefs(ctx, `SELECT id, resource_id FROM threads WHERE id = ?`, threadID)
}

// ResourceThreads returns the threads of resourceID, in no particular
// order.
func (s *Store) ResourceThreads(ctx context.Context, resourceID string) ([]ThreadRef, error) {
	return s.threadRefs(ctx, `SELECT id, resource_id FROM threads WHERE resource_id = ?`, resourceID)
}

// threadRefs runs q, which selects a thread id and a resource id.
func (s *Store) threadRefs(ctx context.Context, q string, args ...any) ([]ThreadRef, error) {
	rows, err := s.conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read threads: %w", err)
	}
	defer rows.Close()
	var out []ThreadRef
	for rows.Next() {
		var r ThreadRef
		if err := rows.Scan(&r.ThreadID, &r.ResourceID); err != nil {
			return nil, fmt.Errorf("read threads: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read threads: %w", err)
	}
	return out, nil
}
