package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// serveBoundedThread runs mnemo serve with limits.maxAnswerBytes 300,000
// on a new data directory and appends to thread t1 of resource r a user
// message of each of contents; it returns startServe's URL, standard
// error and stop.
func serveBoundedThread(t *testing.T, contents []string) (string, *enginetest.SyncBuffer, func() int) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "mnemo.json")
	if err := os.WriteFile(cfg, []byte(`{"limits": {"maxAnswerBytes": 300000}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	url, stderr, stop := startServe(t, filepath.Join(t.TempDir(), "data"), "--config", cfg)
	msgs := make([]map[string]any, len(contents))
	for i, c := range contents {
		msgs[i] = map[string]any{"role": "user", "content": c}
	}
	if status, body := post(t, url+"/v1/threads/t1/messages", "", map[string]any{"resourceId": "r", "messages": msgs}); status != 200 {
		stop()
		t.Fatalf("append: %d %.300s", status, body)
	}
	return url, stderr, stop
}

// TestServeAnswerBound is the break-it case scaled down: mnemo serve with
// limits.maxAnswerBytes of 300,000 and six messages of 100 KB in one
// resource. A search or context whose messages pass the bound is a 422
// answer-too-large problem naming the field to lower (recall.topK; recentN
// for a window alone), and records no run; within the bound it answers.
// Before, every request answered whatever its topK and messageRange
// reached (600 messages of 200 KB: one search answered 120 MB).
func TestServeAnswerBound(t *testing.T) {
	var contents []string
	for i := range 6 {
		contents = append(contents, fmt.Sprintf("harbour note %d ", i)+strings.Repeat("lantern ", 100_000/8))
	}
	url, stderr, stop := serveBoundedThread(t, contents)
	defer stop()
	none := map[string]any{"before": 0, "after": 0}
	for _, c := range []struct {
		name, path string
		body       map[string]any
		status     int
		field      string
	}{
		{"SearchOK", "/v1/search", map[string]any{"resourceId": "r", "query": "harbour lantern", "recall": map[string]any{"topK": 2, "messageRange": none}}, 200, ""},
		{"SearchTopK", "/v1/search", map[string]any{"resourceId": "r", "query": "harbour lantern", "recall": map[string]any{"topK": 6, "messageRange": none}}, 422, "recall.topK"},
		{"SearchRange", "/v1/search", map[string]any{"resourceId": "r", "query": "harbour note 0", "recall": map[string]any{"topK": 1, "messageRange": map[string]any{"before": 5, "after": 5}}}, 422, "recall.topK"},
		{"ContextOK", "/v1/context", map[string]any{"threadId": "t1", "runId": "ok", "recentN": 1, "query": "harbour lantern", "recall": map[string]any{"topK": 1, "messageRange": none}}, 200, ""},
		{"ContextRecall", "/v1/context", map[string]any{"threadId": "t1", "runId": "recall", "recentN": 1, "query": "harbour lantern", "recall": map[string]any{"topK": 5, "messageRange": none}}, 422, "recall.topK"},
		{"ContextBudget", "/v1/context", map[string]any{"threadId": "t1", "runId": "budget", "recentN": 1, "tokenBudget": 100, "query": "harbour lantern", "recall": map[string]any{"topK": 5, "messageRange": none}}, 422, "recall.topK"},
		{"ContextWindow", "/v1/context", map[string]any{"threadId": "t1", "runId": "window", "recentN": 6}, 422, "recentN"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body := post(t, url+c.path, "", c.body)
			if status != c.status {
				t.Fatalf("%s: %d, want %d: %.300s\n%s", c.path, status, c.status, body, stderr.String())
			}
			if c.status == 200 {
				if len(body) > 300_000+64<<10 {
					t.Fatalf("%s answered %d bytes", c.path, len(body))
				}
				return
			}
			var p struct{ Type, Field, Detail string }
			if err := json.Unmarshal(body, &p); err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(p.Type, "/answer-too-large") || p.Field != c.field || !strings.Contains(p.Detail, "limits.maxAnswerBytes") {
				t.Fatalf("problem %+v, want answer-too-large on %s", p, c.field)
			}
			if id, ok := c.body["runId"].(string); ok {
				req, _ := http.NewRequest("GET", url+"/v1/runs/"+id+"/memctx", nil)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				if res.StatusCode != 404 {
					t.Fatalf("run %s of a refused context: %d, want 404 (nothing recorded)", id, res.StatusCode)
				}
			}
		})
	}
}

// TestServeMessagesPageBound: a page of GET /v1/threads/{thread}/messages
// ends once its messages pass limits.maxAnswerBytes, with the cursor of
// the next page as a full page has (at least one message a page), so
// following the cursors still lists every message once, in order, both
// ways. Before, a page of 1000 messages of 256 KiB answered 256 MiB.
func TestServeMessagesPageBound(t *testing.T) {
	var contents []string
	for i := range 6 {
		n := 100_000
		if i == 3 {
			n = 200_000 // with the one before or after it past the bound: a page of its own
		}
		contents = append(contents, fmt.Sprintf("note %d ", i)+strings.Repeat("x", n))
	}
	url, _, stop := serveBoundedThread(t, contents)
	defer stop()
	type page struct {
		Messages []struct {
			Seq int64 `json:"seq"`
		} `json:"messages"`
		NextFromSeq   int64 `json:"nextFromSeq"`
		NextBeforeSeq int64 `json:"nextBeforeSeq"`
	}
	get := func(q string) page {
		t.Helper()
		res, err := http.Get(url + "/v1/threads/t1/messages?" + q)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var p page
		if err := json.NewDecoder(res.Body).Decode(&p); err != nil || res.StatusCode != 200 {
			t.Fatalf("%s: %d %v", q, res.StatusCode, err)
		}
		return p
	}
	var forward, backward []int64
	var sizes []int
	for from, n := int64(1), 0; from > 0 && n < 10; n++ {
		p := get(fmt.Sprintf("limit=1000&fromSeq=%d", from))
		for _, m := range p.Messages {
			forward = append(forward, m.Seq)
		}
		sizes = append(sizes, len(p.Messages))
		from = p.NextFromSeq
	}
	for before, n := int64(7), 0; before > 0 && n < 10; n++ {
		p := get(fmt.Sprintf("limit=1000&beforeSeq=%d", before))
		for i := len(p.Messages) - 1; i >= 0; i-- {
			backward = append(backward, p.Messages[i].Seq)
		}
		before = p.NextBeforeSeq
	}
	if got, want := fmt.Sprint(forward), "[1 2 3 4 5 6]"; got != want {
		t.Fatalf("forward pages listed %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(backward), "[6 5 4 3 2 1]"; got != want {
		t.Fatalf("backward pages listed %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(sizes), "[2 1 1 2]"; got != want {
		t.Fatalf("forward page sizes %s, want %s (300,000 bytes a page)", got, want)
	}
}

// TestContextAnswerBoundFlags: mnemo context over the stored
// limits.maxAnswerBytes names the flags to lower (--top-k, --range,
// --recent) and the setting, not the API's fields (recall.topK …), and
// exits 1; within the bound it prints the context.
func TestContextAnswerBoundFlags(t *testing.T) {
	dir := bigMessagesDir(t, 300_000)
	code, _, stderr := run(t, nil, "--dir", dir, "context", "--thread", "t1", "--recent", "1", "--top-k", "5", "--range", "0", "--query", "harbour lantern")
	want := "lower --top-k, --range or --recent"
	if code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "limits.maxAnswerBytes") || strings.Contains(stderr, "recall.topK") {
		t.Fatalf("context over the bound: exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "context", "--thread", "t1", "--recent", "1", "--top-k", "1", "--range", "0", "--query", "harbour lantern"); code != 0 {
		t.Fatalf("context within the bound: exit %d %s", code, stderr)
	}
}

// bigMessagesDir returns a data directory holding six messages of 100 KB
// in thread t1 of resource r ("harbour note N lantern lantern …"), whose
// mnemo.json sets limits.maxAnswerBytes to maxAnswer (none when 0).
func bigMessagesDir(t *testing.T, maxAnswer int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	in := filepath.Join(t.TempDir(), "big.jsonl")
	var lines []string
	for i := range 6 {
		b, _ := json.Marshal(map[string]any{"thread": "t1", "resource": "r", "role": "user", "content": fmt.Sprintf("harbour note %d ", i) + strings.Repeat("lantern ", 100_000/8)})
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", in); code != 0 {
		t.Fatalf("ingest: %d %s", code, stderr)
	}
	if maxAnswer > 0 {
		setMaxAnswer(t, dir, maxAnswer)
	}
	return dir
}

// setMaxAnswer writes dir's mnemo.json with limits.maxAnswerBytes n.
func setMaxAnswer(t *testing.T, dir string, n int) {
	t.Helper()
	cfg := fmt.Sprintf(`{"limits": {"maxAnswerBytes": %d}}`, n)
	if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}
