package msgstore

import (
	"context"
	"fmt"
	"slices"
)

// ReservedIDs returns the ids of the threads whose id begins with prefix
// and the resources of the threads whose resource id does, each in byte
// order and once (mnemo check's note on ids stored before "erased-" was
// reserved for erased owners). prefix must end with a byte below 0xff
// (any ASCII does); else ErrBadPrefix. Each is one range of an index in
// byte order, so the cost is the matching threads', not the store's: on
// SQLite the primary key and threads_by_resource (BINARY), on Postgres
// threads_by_id_bytes and threads_by_order (COLLATE "C"; pgstore's
// migration 8). Before, the check walked every thread.
func (s *Store) ReservedIDs(ctx context.Context, prefix string) (threads, resources []string, err error) {
	if prefix == "" || prefix[len(prefix)-1] == 0xff {
		return nil, nil, fmt.Errorf("%w: %q", ErrBadPrefix, prefix)
	}
	end := prefix[:len(prefix)-1] + string([]byte{prefix[len(prefix)-1] + 1})
	var found [2][]string
	for i, q := range ReservedQueries(s.byteOrder()) {
		if found[i], err = s.stringsOf(ctx, q, prefix, end); err != nil {
			return nil, nil, fmt.Errorf("list reserved ids: %w", err)
		}
	}
	return found[0], slices.Compact(found[1]), nil
}

// ReservedQueries are ReservedIDs' statements, threads then resources,
// with b the byte-order collation clause (Store.byteOrder): each takes
// the prefix and its end (prefixEnd).
func ReservedQueries(b string) []string {
	return []string{
		`SELECT id FROM threads WHERE id` + b + ` >= ? AND id` + b + ` < ? ORDER BY id` + b,
		`SELECT resource_id FROM threads WHERE resource_id` + b + ` >= ? AND resource_id` + b + ` < ? ORDER BY resource_id` + b,
	}
}

// stringsOf runs query with args and returns its one text column.
func (s *Store) stringsOf(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := s.conn.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
