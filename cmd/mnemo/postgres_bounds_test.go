package main

import (
	"os"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// TestPostgresBoundsEveryProcess: on Postgres the quota and idle lifetime
// of mnemo serve --config FILE bind every process that opens the database
// after it, none of which reads FILE: mnemo mcp's memory_append and mnemo
// ingest are refused past the quota, mnemo expire applies the idle
// lifetime, and a serve with another file says it replaced them. Before,
// only serve applied its file (there is no mnemo.json on Postgres): mcp and
// ingest stored past the quota both servers refused (readme73 F2), and
// expire expired nothing and named a mnemo.json that cannot exist there.
func TestPostgresBoundsEveryProcess(t *testing.T) {
	dsn := pgtest.DSN(t)
	t.Chdir(t.TempDir())
	os.WriteFile("q.json", []byte(`{"lifecycle":{"idleTtl":"1ms","sweepEvery":"0s","quota":{"resourceMessages":2,"refuse":true}}}`), 0o600)
	_, stderr, stop := startServeOn(t, []string{"--db", dsn}, "--config", "q.json")
	if code := stop(); code != 0 {
		t.Fatalf("serve --config: exit %d\n%s", code, stderr)
	}
	os.WriteFile("two.jsonl", []byte(`{"thread":"t1","resource":"alice","role":"user","content":"one"}`+"\n"+
		`{"thread":"t1","resource":"alice","role":"user","content":"two"}`+"\n"), 0o600)
	db := []string{"--db", dsn, "--embedder", "hash-384"}
	if code, stdout, stderr := run(t, nil, append(db, "ingest", "two.jsonl")...); code != 0 {
		t.Fatalf("ingest within the quota: exit %d\n%s%s", code, stdout, stderr)
	}
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_append","arguments":{"threadId":"t2","resourceId":"alice","messages":[{"role":"user","content":"past the quota"}]}}}`,
	}, "\n") + "\n"
	code, stdout, errText := runStdin(t, in, append(db, "mcp", "--resources", "alice")...)
	if code != 0 || strings.Contains(stdout, `"stored":1`) || !strings.Contains(stdout, "would hold 3 messages, bound 2") {
		t.Errorf("mcp memory_append past the stored quota: exit %d, want it refused\n%s%s", code, stdout, errText)
	}
	os.WriteFile("one.jsonl", []byte(`{"thread":"t3","resource":"alice","role":"user","content":"three"}`+"\n"), 0o600)
	if code, stdout, stderr := run(t, nil, append(db, "ingest", "one.jsonl")...); code != 1 || !strings.Contains(stdout+stderr, "quota exceeded") {
		t.Errorf("ingest past the stored quota: exit %d, want 1 and quota exceeded\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := run(t, nil, append(db, "expire", "--dry-run")...); code != 0 || !strings.Contains(stdout, "would expire thread t1") {
		t.Errorf("expire --dry-run with the stored idle lifetime: exit %d, want t1 listed\n%s%s", code, stdout, stderr)
	}
	os.WriteFile("other.json", []byte(`{"lifecycle":{"sweepEvery":"0s"}}`), 0o600)
	_, stderr2, stop := startServeOn(t, []string{"--db", dsn}, "--config", "other.json")
	if code := stop(); code != 0 || !strings.Contains(stderr2.String(), "lifecycle are now other.json's (they were other ones)") {
		t.Errorf("serve --config with other bounds: exit %d, want it to say it replaced them\n%s", code, stderr2)
	}
	if code, stdout, stderr := run(t, nil, append(db, "ingest", "one.jsonl")...); code != 0 {
		t.Errorf("ingest under the new bounds (no quota): exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestPostgresExpireNoLifetimeNote: mnemo expire on --db with no idle
// lifetime stored says where one is configured there (a mnemo serve
// --config), not in a mnemo.json, which no Postgres database has.
func TestPostgresExpireNoLifetimeNote(t *testing.T) {
	dsn := pgtest.DSN(t)
	t.Chdir(t.TempDir())
	os.WriteFile("one.jsonl", []byte(`{"thread":"t1","resource":"alice","role":"user","content":"one"}`+"\n"), 0o600)
	db := []string{"--db", dsn, "--embedder", "hash-384"}
	if code, stdout, stderr := run(t, nil, append(db, "ingest", "one.jsonl")...); code != 0 {
		t.Fatalf("ingest: exit %d\n%s%s", code, stdout, stderr)
	}
	code, _, stderr := run(t, nil, append(db, "expire")...)
	if code != 0 || strings.Contains(stderr, "mnemo.json") || !strings.Contains(stderr, "mnemo serve --config FILE") {
		t.Errorf("expire --db with no lifetime: exit %d, stderr %q; want a note naming mnemo serve --config, not mnemo.json", code, stderr)
	}
}
