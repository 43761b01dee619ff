package journal_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// TestErasurePlansSeek: the statements an erasure or an expiry runs on
// the journal seek its thread or resource index (SQLite's EXPLAIN QUERY
// PLAN). EntombThread's and EntombResource's updates named thread_id or
// resource_id alone, and SQLite scanned every row of the journal in each
// erasure's transaction (SCAN journal); GhostRuns with neither a thread
// nor a resource (every Expire) read every memctx record
// (journal_by_resource (scope=?)). Postgres's plans depend on its
// statistics; BENCHMARKS.md has the figures on both.
func TestErasurePlansSeek(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		if b.Dialect != store.SQLite {
			t.Skip("the plans are SQLite's; Postgres's are measured by BenchmarkErasureJournal")
		}
		_, db := b.openErase(t)
		for _, c := range journal.ErasurePlans {
			text := b.Plan(t, db, c.Query, c.Args...)
			if strings.Contains(text, "SCAN journal") || strings.Contains(text, "(scope=?)") ||
				!strings.Contains(text, "thread_id") && !strings.Contains(text, "resource_id") {
				t.Errorf("%s reads the whole journal: %s", c.Name, text)
			}
		}
	})
}

// TestGhostWalkLooksUpThreadsOnce: Expire's walk of the memctx thread ids
// (GhostRuns with neither a thread nor a resource) looks each id up in
// threads once, its branches reading the materialized owner (SQLite's
// EXPLAIN QUERY PLAN: one SEARCH threads). It looked each id up in each of
// its three branches (the NOT EXISTS and the two ranges of the owner's
// other resources): part of the 1.3x an Expire on SQLite took after those
// ranges came (BENCHMARKS.md, run58 and perf60).
func TestGhostWalkLooksUpThreadsOnce(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		if b.Dialect != store.SQLite {
			t.Skip("the plans are SQLite's; Postgres's are measured by BenchmarkErasureJournal")
		}
		_, db := b.openErase(t)
		for _, c := range journal.ErasurePlans {
			if c.Name != "GhostRuns" {
				continue
			}
			text := b.Plan(t, db, c.Query, c.Args...)
			if n := strings.Count(text, "SEARCH threads"); n != 1 {
				t.Errorf("the walk looks each id up in threads %d times, want 1: %s", n, text)
			}
			if n := strings.Count(text, "MATERIALIZE"); n != 2 {
				t.Errorf("the walk materializes %d tables, want 2 (ids, o): %s", n, text)
			}
		}
	})
}
