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
