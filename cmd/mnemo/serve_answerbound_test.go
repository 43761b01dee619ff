package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeAnswerBound is the break-it case scaled down: mnemo serve with
// limits.maxAnswerBytes of 300,000 and six messages of 100 KB in one
// resource. A search or context whose messages pass the bound is a 422
// answer-too-large problem naming the field to lower (recall.topK; recentN
// for a window alone), and records no run; within the bound it answers.
// Before, every request answered whatever its topK and messageRange
// reached (600 messages of 200 KB: one search answered 120 MB).
func TestServeAnswerBound(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	cfg := filepath.Join(t.TempDir(), "mnemo.json")
	if err := os.WriteFile(cfg, []byte(`{"limits": {"maxAnswerBytes": 300000}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	url, stderr, stop := startServe(t, dir, "--config", cfg)
	defer stop()
	var msgs []map[string]any
	for i := range 6 {
		msgs = append(msgs, map[string]any{"role": "user", "content": fmt.Sprintf("harbour note %d ", i) + strings.Repeat("lantern ", 100_000/8)})
	}
	if status, body := post(t, url+"/v1/threads/t1/messages", "", map[string]any{"resourceId": "r", "messages": msgs}); status != 200 {
		t.Fatalf("append: %d %s", status, body)
	}
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
