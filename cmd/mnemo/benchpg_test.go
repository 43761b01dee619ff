package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/cmd/mnemo/internal/bench"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// TestBenchProcessesUsage: --processes needs Postgres and counts from 1 to
// 64; with --db, --work and --reuse (data directories) are refused; --worker
// is for the processes bench starts. All before any connection.
func TestBenchProcessesUsage(t *testing.T) {
	const db = "postgres://u:s3cret-pw@127.0.0.1:1/x"
	for _, args := range [][]string{
		{"bench", "--processes", "1,2"},
		{"--db", db, "bench", "--processes", "0"},
		{"--db", db, "bench", "--processes", "1,x"},
		{"--db", db, "bench", "--work", filepath.Join(t.TempDir(), "w")},
		{"--db", db, "bench", "--processes", "2", "--file", "x.jsonl"},
		{"bench", "--worker", "load", "--processes", "1"},
		{"--db", db, "bench", "--worker", "load", "--processes", "1,2"},
	} {
		code, _, stderr := run(t, nil, args...)
		if code != 2 || strings.Contains(stderr, "s3cret-pw") {
			t.Errorf("%v: exit %d %q, want 2 without the password", args, code, stderr)
		}
	}
}

// TestBenchPostgres: mnemo bench --db fills a new schema, reports the
// figures with the schema's size as the disk figure, and drops the schema.
func TestBenchPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	code, out, stderr := run(t, nil, "--db", dsn, "bench", "--size", "600", "--resources", "3", "--queries", "20", "--appends", "10", "--exactness", "0", "--json")
	if code != 0 {
		t.Fatalf("bench exit %d: %s", code, stderr)
	}
	var rep bench.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("bench --json: %v\n%s", err, out)
	}
	if rep.Backend != "postgres" || rep.Corpus.Messages != 600 || rep.LoadContext.N != 20 || rep.Append.N != 10 {
		t.Errorf("report: backend %q, %d messages, %d LoadContext, %d appends", rep.Backend, rep.Corpus.Messages, rep.LoadContext.N, rep.Append.N)
	}
	if rep.Ingest.MessagesPerSec <= 0 || rep.Disk.Postgres <= 0 || rep.Disk.SQLite != 0 || rep.LoadContext.P50 <= 0 {
		t.Errorf("figures: ingest %+v, disk %+v, LoadContext %+v", rep.Ingest, rep.Disk, rep.LoadContext)
	}
	if entries, _ := os.ReadDir("."); hasFile(entries, "bench-corpus.json") {
		t.Error("a Postgres run wrote the corpus manifest into the working directory")
	}
}

func hasFile(entries []os.DirEntry, name string) bool {
	for _, e := range entries {
		if e.Name() == name {
			return true
		}
	}
	return false
}

// TestBenchProcessesPostgres: mnemo bench --processes 1,2 runs worker
// processes of the binary against one database, each count on its own
// schema, and reports throughput per count from every worker's calls.
func TestBenchProcessesPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	cmd := exec.Command(buildCLI(t), "--db", dsn, "bench", "--size", "400", "--resources", "2", "--queries", "10", "--processes", "1,2", "--json")
	cmd.Env = append(os.Environ(), "MNEMO_DB=")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bench --processes: %v\n%s", err, stderr.String())
	}
	var rep bench.ScaleReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if len(rep.Points) != 2 {
		t.Fatalf("points: %+v", rep.Points)
	}
	for i, p := range rep.Points {
		n := i + 1
		if p.Processes != n || p.LoadContext.N != 10*n || p.AppendCall.N == 0 || p.IngestMessagesPerSec <= 0 || p.LoadContextPerSec <= 0 || p.DiskBytes <= 0 {
			t.Errorf("%d processes: %+v", n, p)
		}
	}
	if strings.Count(stderr.String(), "ingesting 400 messages into schema mnemo_bench_") != 2 {
		t.Errorf("progress: %s", stderr.String())
	}
}
