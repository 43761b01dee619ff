package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorWording: error messages name what the user gave and say each
// thing once: serve --config FILE names FILE (not the stored mnemo.json);
// a bad recall filter or option in it is said without "recall: recall";
// observe without MNEMO_MODEL says to set it, without "observe: observe";
// an incomplete last JSONL line is named with its file and line and said
// to be incomplete, not "unexpected EOF".
func TestErrorWording(t *testing.T) {
	tmp := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	zone := write("zone.json", `{"timeZone": "Mars/Olympus"}`)
	filter := write("filter.json", `{"recall": {"filter": {"seq": {"$like": 1}}}}`)
	topk := write("topk.json", `{"recall": {"topK": -1}}`)
	cut := write("cut.jsonl", `{"thread":"t","resource":"r","role":"user","content":"one"}`+"\n"+`{"thread":"t","resource":"r","role":"user","content":"tw`)
	mid := write("mid.jsonl", `{"thread":"t","resource":"r","role":"user","content":"tw`+"\n"+`{"thread":"t","resource":"r","role":"user","content":"one"}`+"\n")
	for _, c := range []struct {
		name     string
		args     []string
		want     []string
		not      []string
		wantCode int
	}{
		{"ServeConfigFile", []string{"serve", "--config", zone, "--listen", "127.0.0.1:0"}, []string{"zone.json", "timeZone"}, []string{"mnemo.json"}, 1},
		{"ServeConfigFilter", []string{"serve", "--config", filter, "--listen", "127.0.0.1:0"}, []string{"filter.json", "recall.filter at seq ($like): unknown operator"}, []string{"recall: recall", "mnemo.json"}, 1},
		{"ServeConfigTopK", []string{"serve", "--config", topk, "--listen", "127.0.0.1:0"}, []string{"topk.json", "recall.topK must be"}, []string{"recall: recall", "mnemo.json"}, 1},
		{"ObserveNoModel", []string{"observe", "--thread", "t"}, []string{"MNEMO_MODEL is not set"}, []string{"observe: observe", "invalid config"}, 1},
		{"IngestCutLastLine", []string{"ingest", cut}, []string{"cut.jsonl line 2: incomplete record", "no newline"}, []string{"unexpected EOF"}, exitSkipped},
		{"IngestCutLine", []string{"ingest", mid}, []string{"mid.jsonl line 1: incomplete record"}, []string{"unexpected EOF", "no newline"}, exitSkipped},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := run(t, nil, append([]string{"--dir", filepath.Join(t.TempDir(), "d")}, c.args...)...)
			if code != c.wantCode {
				t.Errorf("exit %d, want %d: %s", code, c.wantCode, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			for _, n := range c.not {
				if strings.Contains(stderr, n) {
					t.Errorf("stderr %q says %q", stderr, n)
				}
			}
		})
	}
}
