package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestSearchJSONMessages: each hit of `mnemo search --json` carries its
// stored message under "message", with the names POST /v1/search gives
// it (role, content, toolCalls as stored), beside its ids, scores and
// reason; a --range neighbour too. Before (readme57), the hits had ids and
// scores only, while the table had a preview and /v1/search and
// memory_search the message.
func TestSearchJSONMessages(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(t.TempDir(), "chat.jsonl")
	lines := `{"thread":"t1","resource":"ana","id":"u1","role":"user","content":"book the night train to Porto"}
{"thread":"t1","resource":"ana","id":"a1","role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"book","arguments":"{\"to\":\"Porto\"}"}}]}
{"thread":"t1","resource":"ana","id":"r1","role":"tool","tool_call_id":"c1","content":"booked"}
`
	if err := os.WriteFile(in, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, nil, "--dir", dir, "ingest", in); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	code, out, errOut := run(t, nil, "--dir", dir, "search", "--resource", "ana", "--range", "1", "--json", "night train Porto")
	if code != 0 {
		t.Fatalf("search: exit %d %s", code, errOut)
	}
	var got struct {
		Hits []struct {
			ThreadID  string `json:"threadId"`
			Seq       int64  `json:"seq"`
			MessageID string `json:"messageId"`
			Reason    string `json:"reason"`
			Message   *struct {
				ID        string            `json:"id"`
				ThreadID  string            `json:"threadId"`
				Seq       int64             `json:"seq"`
				Role      string            `json:"role"`
				Content   string            `json:"content"`
				ToolCalls []json.RawMessage `json:"toolCalls"`
				CreatedAt string            `json:"createdAt"`
			} `json:"message"`
		} `json:"hits"`
		Retrieval struct{ Lexical string } `json:"retrieval"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Hits) == 0 || got.Retrieval.Lexical == "" {
		t.Fatalf("search --json: %v\n%s", err, out)
	}
	byID := map[string]int{}
	for i, h := range got.Hits {
		m := h.Message
		if m == nil || m.ID != h.MessageID || m.ThreadID != h.ThreadID || m.Seq != h.Seq || m.Role == "" || m.CreatedAt == "" {
			t.Fatalf("hit %d has no message, or another one's: %s", i, out)
		}
		byID[h.MessageID] = i
	}
	u, ok := byID["u1"]
	if !ok || got.Hits[u].Message.Content != "book the night train to Porto" || got.Hits[u].Message.Role != "user" {
		t.Fatalf("the user turn's hit lacks its text: %s", out)
	}
	if a, ok := byID["a1"]; ok && len(got.Hits[a].Message.ToolCalls) != 1 {
		t.Fatalf("the assistant turn's hit lacks its tool call: %s", out)
	}
}
