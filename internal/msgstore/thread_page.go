package msgstore

import (
	"context"
	"slices"
	"strings"
)

// ThreadKey is a thread's place in Threads' order: its resource, its
// creation time (Unix milliseconds) and its id, compared in that order,
// the strings in byte order.
type ThreadKey struct {
	ResourceID string
	CreatedAt  int64
	ID         string
}

// Key returns t's place in Threads' order.
func (t Thread) Key() ThreadKey {
	return ThreadKey{ResourceID: t.ResourceID, CreatedAt: t.CreatedAt.UnixMilli(), ID: t.ID}
}

// ThreadsAfter returns at most limit threads of the given resources (all
// threads when resources is empty) that follow after in Threads' order
// (from the first when after is nil). It reads about limit rows of the
// index threads_by_order whatever the number of threads before after:
// one range query, or with resources two (the rest of after's resource,
// then the resources after it), never a sort of the threads asked for.
// A thread created or deleted meanwhile moves no other thread's place.
func (s *Store) ThreadsAfter(ctx context.Context, resources []string, after *ThreadKey, limit int) ([]Thread, error) {
	var out []Thread
	for _, q := range s.threadsAfterQueries(resources, after) {
		if len(out) >= limit {
			break
		}
		ts, err := s.queryThreads(ctx, q.sql+` LIMIT ?`, append(q.args, limit-len(out)))
		if err != nil {
			return nil, err
		}
		out = append(out, ts...)
	}
	return out, nil
}

// threadQuery is a statement of ThreadsAfter before its LIMIT: a SELECT
// of threadColumns in Threads' order, and its arguments.
type threadQuery struct {
	sql  string
	args []any
}

// threadsAfterQueries returns the statements ThreadsAfter runs in turn
// (each for the rows the ones before did not give): over every resource
// one range of the index; over resources, the rest of after's resource
// when it is one of them, then the resources after it.
func (s *Store) threadsAfterQueries(resources []string, after *ThreadKey) []threadQuery {
	sel, b := `SELECT `+threadColumns+` FROM threads`, s.byteOrder()
	if len(resources) == 0 {
		if after == nil {
			return []threadQuery{{sql: sel + s.threadOrder()}}
		}
		return []threadQuery{{sql: sel + ` WHERE (resource_id` + b + `, created_at, id` + b + `) > (?, ?, ?)` + s.threadOrder(),
			args: []any{after.ResourceID, after.CreatedAt, after.ID}}}
	}
	names := slices.Clone(resources)
	slices.Sort(names) // Go compares strings bytewise, as threadOrder
	names = slices.Compact(names)
	var qs []threadQuery
	if after != nil {
		if _, ok := slices.BinarySearch(names, after.ResourceID); ok {
			qs = append(qs, threadQuery{sql: sel + ` WHERE resource_id` + b + ` = ? AND (created_at, id` + b + `) > (?, ?)` + s.threadOrder(),
				args: []any{after.ResourceID, after.CreatedAt, after.ID}})
		}
		i, _ := slices.BinarySearch(names, after.ResourceID+"\x00") // the first name > after's
		names = names[i:]
	}
	if len(names) > 0 {
		cond, args := s.resourcesIn(names)
		qs = append(qs, threadQuery{sql: sel + ` WHERE ` + cond + s.threadOrder(), args: args})
	}
	return qs
}

// byteOrder is the collation clause that makes a text column compare in
// byte order and match threads_by_order's: none on SQLite (BINARY), COLLATE
// "C" on Postgres (an index column serves only conditions and orders of
// its collation).
func (s *Store) byteOrder() string { return s.dialect.Text(``, ` COLLATE "C"`) }

// resourcesIn is the condition "resource_id is one of names" and its
// arguments: an IN list on SQLite (which walks it in order, keeping the
// index's order), = ANY of a text[] on Postgres, both in
// threads_by_order's collation.
func (s *Store) resourcesIn(names []string) (string, []any) {
	if s.pg() {
		return `resource_id COLLATE "C" = ANY(?::text[])`, []any{names}
	}
	args := make([]any, len(names))
	for i, n := range names {
		args[i] = n
	}
	return `resource_id IN (?` + strings.Repeat(`, ?`, len(names)-1) + `)`, args
}
