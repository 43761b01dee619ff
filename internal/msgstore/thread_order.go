package msgstore

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// ThreadsInOrder returns those of ids that are threads of resourceID, in
// Threads' order: by creation time, then by id in byte order (ties in
// creation time are ordered the same on both backends, whatever the
// columns' collation). An id not stored, or another resource's thread, is
// left out. It reads only the rows asked for, looked up by id (in the
// unique id index or threads_by_resource), whatever the resource's thread
// count: one cached statement for any number of ids (a JSON array on
// SQLite, a text[] on Postgres, as MessagesByID).
func (s *Store) ThreadsInOrder(ctx context.Context, resourceID string, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	q, args, err := s.threadsInOrderQuery(resourceID, ids)
	var keys []threadKey
	if err == nil {
		keys, err = s.threadKeys(ctx, q, args)
	}
	if err != nil {
		return nil, fmt.Errorf("order threads: %w", err)
	}
	slices.SortFunc(keys, func(a, b threadKey) int {
		return cmp.Or(cmp.Compare(a.created, b.created), strings.Compare(a.id, b.id))
	})
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.id
	}
	return out, nil
}

// threadKey is what orders a thread among its resource's: its creation
// time (Unix ms), then its id.
type threadKey struct {
	id      string
	created int64
}

// threadKeys runs q, a SELECT of id, created_at, and scans its rows.
func (s *Store) threadKeys(ctx context.Context, q string, args []any) ([]threadKey, error) {
	rows, err := s.stmts.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []threadKey
	for rows.Next() {
		var k threadKey
		if err := rows.Scan(&k.id, &k.created); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

// threadsInOrderQuery is ThreadsInOrder's statement and arguments: the
// named threads' ordering keys, looked up by id.
func (s *Store) threadsInOrderQuery(resourceID string, ids []string) (string, []any, error) {
	if s.pg() {
		return `SELECT id, created_at FROM threads WHERE id = ANY($1::text[]) AND resource_id = $2`, []any{ids, resourceID}, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return "", nil, err
	}
	return `SELECT id, created_at FROM threads WHERE id IN (SELECT value FROM json_each(?)) AND resource_id = ?`,
		[]any{string(list), resourceID}, nil
}
