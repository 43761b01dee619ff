package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/mnemo-go/mnemo/cmd/mnemo/internal/evalset"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// TestEvalPostgres: mnemo --db … eval ingests LoCoMo into Postgres and
// scores recall there; the hybrid mode (both channels and their fusion)
// gives the figures the SQLite backend gives on the same set with the same
// embedder (hash-384), within one question (HNSW and tie order may swap
// one). (All three modes gave equal figures to the third decimal on the
// whole set: docs/postgres.md. The test asks one mode on the set's first two
// conversations, 304 of its 999 questions, to keep it near 20 s;
// internal/pgrecall's TestLoCoMoRecall compares the channels on every
// conversation.)
func TestEvalPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests LoCoMo twice; skipped with -short")
	}
	dsn := pgtest.DSN(t)
	path := firstSamples(t, sharedData(t, "locomo/locomo10-dev.json"), 2)
	type report struct {
		Mode    string                                `json:"mode"`
		Backend string                                `json:"backend"`
		Turn    map[string]map[string]evalset.Metrics `json:"turn"`
		Counts  map[string]int                        `json:"counts"`
	}
	eval := func(args ...string) report {
		t.Helper()
		code, out, errOut := run(t, nil, append(args, "eval", "--embedder", "hash-384", "--mode", "hybrid", "--json", path)...)
		if code != 0 {
			t.Fatalf("%v eval: exit %d: %s", args, code, errOut)
		}
		var r report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("eval --json: %v", err)
		}
		return r
	}
	p, s := eval("--db", dsn), eval()
	if p.Backend != "postgres" || s.Backend != "sqlite" || p.Mode != "hybrid" {
		t.Fatalf("backends %q and %q, mode %q", p.Backend, s.Backend, p.Mode)
	}
	one := 1 / float64(s.Counts["overall"])
	if len(s.Turn["overall"]) != 3 {
		t.Fatalf("cutoffs: %v", s.Turn["overall"])
	}
	for k, sm := range s.Turn["overall"] {
		pm := p.Turn["overall"][k]
		if math.Abs(pm.RecallAny-sm.RecallAny) > one+1e-9 || math.Abs(pm.NDCG-sm.NDCG) > one+1e-9 {
			t.Errorf("recall_any%s: postgres %.3f, sqlite %.3f; ndcg %.3f, %.3f", k, pm.RecallAny, sm.RecallAny, pm.NDCG, sm.NDCG)
		}
	}
}

// firstSamples writes the first n samples of the LoCoMo file at path (a
// JSON array) to a file of the test's and returns its path.
func firstSamples(t *testing.T, path string, n int) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var samples []json.RawMessage
	if err := json.Unmarshal(b, &samples); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(samples) < n {
		t.Fatalf("%s holds %d samples, want at least %d", path, len(samples), n)
	}
	out, err := json.Marshal(samples[:n])
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(t.TempDir(), "locomo-first"+strconv.Itoa(n)+".json")
	if err := os.WriteFile(sub, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return sub
}
