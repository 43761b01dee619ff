package journal_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// TestListRunsBefore: pages of ListRuns, each Before the last run of the
// one before, give every run of the listing (all, a resource's, a
// thread's) newest first, once each, ties in time by key in byte order
// also under a linguistic collation on Postgres; a run recorded between
// pages (newer than all) moves no other. The listing of every run walks
// journal_memctx_by_time with no sort on both backends; on SQLite a
// resource's or a thread's walks its index by time, sorting only ties.
func TestListRunsBefore(t *testing.T) { forEachBackend(t, testListRunsBefore) }

func testListRunsBefore(t *testing.T, b backend) {
	ctx := context.Background()
	j, db := b.openErase(t)
	b.Linguistic(t, store.Bound(db), "journal.key")
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	j = journal.JournalWithClock(t, j, &clock)
	put := func(id, thread, res string) {
		t.Helper()
		if err := j.PutMemCtx(ctx, &journal.MemCtx{RunID: id, ThreadID: thread, ResourceID: res}, false); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 300 {
		if i%4 == 0 {
			clock = clock.Add(time.Millisecond) // ties of 4 runs
		}
		put([]string{"B", "a", "f", "C"}[i%4]+fmt.Sprint(i/4), []string{"t1", "t2", "t3"}[i%3], []string{"r1", "r2"}[i%3/2])
	}
	for n, f := range []journal.RunFilter{{}, {ResourceID: "r1"}, {ThreadID: "t2"}} {
		all := runIDs(t, j, journal.RunFilter{ResourceID: f.ResourceID, ThreadID: f.ThreadID, Limit: 1000})
		var got []string
		f.Limit = 7
		for page := 0; page <= len(all); page++ {
			runs, err := j.ListRuns(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range runs {
				got = append(got, r.RunID)
			}
			if len(runs) < 7 {
				break
			}
			k := runs[len(runs)-1].Key()
			f.Before = &k
			if page == 1 {
				clock = clock.Add(time.Hour)
				put(fmt.Sprintf("new%d", n), "t2", "r1") // newer than all: before the pages read
			}
		}
		if !slices.Equal(got, all) {
			t.Errorf("%+v: pages %d runs, want %d newest first (first %q, want %q)", f, len(got), len(all), got[:min(len(got), 5)], all[:min(len(all), 5)])
		}
	}
	before := &journal.RunKey{CreatedAt: clock.Add(-time.Hour - 30*time.Millisecond).UnixMilli(), RunID: "a40"}
	for f, index := range map[journal.RunFilter]string{
		{Limit: 10, Before: before}:                   "journal_memctx_by_time",
		{Limit: 10, Before: before, ResourceID: "r1"}: "journal_by_resource",
		{Limit: 10, Before: before, ThreadID: "t1"}:   "journal_by_thread",
	} {
		q, args := j.RunsQuery(f)
		all := f.ResourceID == "" && f.ThreadID == ""
		if b.Dialect == store.Postgres && !all {
			// Postgres plans by cost: on these 300 rows a resource's or a
			// thread's runs are read by a scan (logged, not checked).
			index = ""
		}
		checkRunsPlan(t, b, db, q, args, index, all)
	}
}

// runIDs lists the runs of f by one ListRuns.
func runIDs(t *testing.T, j *journal.Journal, f journal.RunFilter) []string {
	t.Helper()
	runs, err := j.ListRuns(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.RunID)
	}
	return ids
}

// checkRunsPlan fails t unless q walks index ("" : no check, the plan is
// logged) by time: with unsorted, in
// order (SQLite: no temporary b-tree; Postgres: no Sort node), else
// sorting at most the ties in time (SQLite: no temporary b-tree for the
// whole ORDER BY, only its right part; Postgres: no Sort but an
// Incremental Sort).
func checkRunsPlan(t *testing.T, b backend, db *sql.DB, q string, args []any, index string, unsorted bool) {
	t.Helper()
	if b.Dialect == store.Postgres {
		if _, err := db.Exec(`ANALYZE journal`); err != nil {
			t.Fatal(err)
		}
	}
	text := b.Plan(t, db, q, args...)
	sorts := strings.Contains(text, "TEMP B-TREE FOR ORDER BY") || strings.Contains(strings.ReplaceAll(text, "Incremental Sort", ""), "Sort")
	if unsorted {
		sorts = sorts || strings.Contains(text, "TEMP B-TREE") || strings.Contains(text, "Sort")
	}
	if index != "" && (!strings.Contains(text, index) || sorts) {
		t.Errorf("the plan does not walk %s by time: %s", index, text)
	}
}
