package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIngestUnstored: lines holding members that chat APIs write and
// mnemo does not store are imported, and ingest's summary counts them and
// names the members (each file's line, the "total:" line, --json's
// unstored and unstoredMembers). Before, each such line was skipped
// (`unknown field "refusal"`), and a line whose content was a list of
// parts (`"content" must be a string, got a list`).
func TestIngestUnstored(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	os.WriteFile(a, []byte(`{"thread":"t1","resource":"r","role":"user","content":"hello"}
{"thread":"t1","resource":"r","role":"assistant","content":"hi","refusal":null,"annotations":[{"type":"url_citation"}]}
{"thread":"t1","resource":"r","role":"assistant","content":"yes","reasoning_content":"because","annotations":[{"type":"url_citation"}]}
{"thread":"t1","resource":"r","role":"assistant","content":null,"refusal":"I can't help with that."}
`), 0o600)
	b := filepath.Join(dir, "b.jsonl")
	os.WriteFile(b, []byte(`{"thread":"t2","resource":"r","role":"user","content":"hello"}
{"thread":"t2","resource":"r","role":"assistant","content":"ok","thinking":"hmm"}
`), 0o600)
	parts := filepath.Join(dir, "parts.jsonl")
	os.WriteFile(parts, []byte(`{"thread":"t3","resource":"r","role":"user","content":[{"type":"text","text":"What's in this image?"},{"type":"image_url","image_url":{"url":"https://example.com/a.jpg"}}]}
`), 0o600)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"One", []string{"ingest", a},
			"a.jsonl (jsonl): 1 resource, 1 thread, 4 messages stored, 0 already stored, 0 skipped; 2 lines had members mnemo does not store: annotations, reasoning_content\n"},
		{"Singular", []string{"ingest", b},
			"b.jsonl (jsonl): 1 resource, 1 thread, 2 messages stored, 0 already stored, 0 skipped; 1 line had a member mnemo does not store: thinking\n"},
		{"Total", []string{"ingest", a, b},
			"total: 2 resources, 2 threads, 6 messages stored, 0 already stored, 0 skipped; 3 lines had members mnemo does not store: annotations, reasoning_content, thinking\n"},
		{"Parts", []string{"ingest", parts},
			"parts.jsonl (jsonl): 1 resource, 1 thread, 1 message stored, 0 already stored, 0 skipped; 1 line had a member mnemo does not store: content[].image_url\n"},
		{"JSON", []string{"ingest", "--json", a},
			`"messages":4,"duplicates":0,"skipped":0,"unstored":2,"unstoredMembers":["annotations","reasoning_content"]}` + "\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := run(t, nil, append([]string{"--dir", t.TempDir()}, c.args...)...)
			if code != 0 || !strings.HasSuffix(out, c.want) || stderr != "" {
				t.Fatalf("exit %d, out %q, stderr %q; want it to end %q", code, out, stderr, c.want)
			}
		})
	}
}
