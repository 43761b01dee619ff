package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestOneShotSaysEviction: a one-shot command whose engine erases a
// thread on its own account says so on standard error, thread, resource
// and message count (never text), after its own output: mnemo ingest
// whose appends a quota's eviction follows, mnemo context that meets its
// thread idle past its lifetime. Both were silent outside serve and mcp
// (their engines had no Config.Events), though the thread was gone.
func TestOneShotSaysEviction(t *testing.T) {
	t.Run("IngestEvicts", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(`{"lifecycle":{"quota":{"storeMessages":1}}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		in := filepath.Join(t.TempDir(), "in.jsonl")
		lines := `{"thread":"old-thread","resource":"u1","role":"user","content":"the spare key is under the blue flowerpot"}` + "\n" +
			`{"thread":"new-thread","resource":"u2","role":"user","content":"hello"}` + "\n"
		if err := os.WriteFile(in, []byte(lines), 0o600); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := run(t, nil, "--dir", dir, "ingest", in)
		want := `mnemo ingest: warning: thread "old-thread" of resource "u1" was evicted: the store is over its quota (lifecycle.quota in mnemo.json); 1 message erased`
		if code != 0 || !strings.Contains(stderr, want) || strings.Contains(stderr, "flowerpot") {
			t.Fatalf("exit %d, stderr %q; want the line %q", code, stderr, want)
		}
		// The summary says the eviction too: 2 stored, 1 left.
		sum := in + " (jsonl): 2 resources, 2 threads, 2 messages stored, 0 already stored, 0 skipped; 1 thread evicted (quota), 1 message erased\n"
		if stdout != sum {
			t.Errorf("stdout %q; want %q", stdout, sum)
		}
	})
	t.Run("IngestSummaryErased", ingestSummaryErased)
	t.Run("ContextExpires", func(t *testing.T) {
		dir := t.TempDir()
		if code, _, stderr := run(t, nil, "--dir", dir, "ingest", filepath.Join("..", "..", "demodata", "conversation.jsonl")); code != 0 {
			t.Fatalf("ingest exit %d: %s", code, stderr)
		}
		if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(`{"lifecycle":{"idleTtl":"1ms"}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
		code, _, stderr := run(t, nil, "--dir", dir, "context", "--thread", "ana:today")
		if !strings.Contains(stderr, `mnemo context: warning: thread "ana:today" of resource "ana" expired: idle for its lifetime`) {
			t.Fatalf("exit %d, stderr %q; want the expiry said", code, stderr)
		}
	})
	t.Run("QuietOtherwise", func(t *testing.T) {
		dir := t.TempDir()
		for _, args := range [][]string{
			{"ingest", filepath.Join("..", "..", "demodata", "conversation.jsonl")},
			{"context", "--thread", "ana:today"},
			{"delete", "--thread", "ana:today", "--yes"},
		} {
			if code, _, stderr := run(t, nil, append([]string{"--dir", dir}, args...)...); code != 0 || strings.Contains(stderr, "warning") {
				t.Fatalf("%v: exit %d, stderr %q", args, code, stderr)
			}
		}
	})
}

// ingestSummaryErased: mnemo ingest's summary lines (and --json's
// report) say the threads its appends evicted (a quota) or expired (idle
// past their lifetime), per FILE and in the total, after the messages
// stored. Before, "3 messages stored" was all they said while the store
// held fewer, the warnings on stderr alone saying why.
func ingestSummaryErased(t *testing.T) {
	write := func(name, lines string) string {
		t.Helper()
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	line := func(thread, resource string) string {
		return `{"thread":"` + thread + `","resource":"` + resource + `","role":"user","content":"a note of ` + thread + `"}` + "\n"
	}
	quota := `{"lifecycle":{"quota":{"storeMessages":2}}}`
	for _, tc := range []struct {
		name, config string
		before       string // ingested first, without the config
		files        []string
		json         bool
		want         []string // stdout's lines, FILE for each file's path
	}{
		{name: "none", config: quota, files: []string{line("a", "u") + line("b", "u")},
			want: []string{"FILE (jsonl): 1 resource, 2 threads, 2 messages stored, 0 already stored, 0 skipped"}},
		{name: "two evicted", config: quota, files: []string{line("a", "u") + line("a", "u") + line("b", "u") + line("c", "u") + line("d", "u")},
			want: []string{"FILE (jsonl): 1 resource, 4 threads, 5 messages stored, 0 already stored, 0 skipped; 2 threads evicted (quota), 3 messages erased"}},
		{name: "total", config: quota, files: []string{line("a", "u") + line("b", "u"), line("c", "u")},
			want: []string{"FILE (jsonl): 1 resource, 2 threads, 2 messages stored, 0 already stored, 0 skipped",
				"FILE (jsonl): 1 resource, 1 thread, 1 message stored, 0 already stored, 0 skipped; 1 thread evicted (quota), 1 message erased",
				"total: 2 resources, 3 threads, 3 messages stored, 0 already stored, 0 skipped; 1 thread evicted (quota), 1 message erased"}},
		{name: "expired", config: `{"lifecycle":{"idleTtl":"1ms"}}`, before: line("a", "u") + line("a", "u"), files: []string{line("a", "u")},
			want: []string{"FILE (jsonl): 1 resource, 1 thread, 1 message stored, 0 already stored, 0 skipped; 1 thread expired (idle), 2 messages erased"}},
		{name: "json", config: quota, files: []string{line("a", "u") + line("b", "u") + line("c", "u")}, json: true,
			want: []string{`{"file":"FILE","format":"jsonl","resources":1,"threads":3,"messages":3,"duplicates":0,"skipped":0,"unstored":0,"evicted":1,"evictedMessages":1}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.before != "" {
				if code, _, stderr := run(t, nil, "--dir", dir, "ingest", write("before.jsonl", tc.before)); code != 0 {
					t.Fatalf("ingest before: exit %d: %s", code, stderr)
				}
				time.Sleep(5 * time.Millisecond) // past the 1 ms lifetime
			}
			if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(tc.config), 0o600); err != nil {
				t.Fatal(err)
			}
			args := []string{"--dir", dir, "ingest"}
			if tc.json {
				args = append(args, "--json")
			}
			var paths []string
			for i, f := range tc.files {
				paths = append(paths, write("in"+strconv.Itoa(i)+".jsonl", f))
			}
			code, stdout, stderr := run(t, nil, append(args, paths...)...)
			var want []string
			for i, w := range tc.want {
				if i < len(paths) {
					w = strings.Replace(w, "FILE", paths[i], 1)
				}
				want = append(want, w)
			}
			if code != 0 || stdout != strings.Join(want, "\n")+"\n" {
				t.Errorf("exit %d, stdout %q (stderr %q); want exit 0, stdout %q", code, stdout, stderr, strings.Join(want, "\n")+"\n")
			}
		})
	}
}
