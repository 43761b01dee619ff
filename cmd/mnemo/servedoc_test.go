package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/journal"
)

// docCurl is one of docs/serve.md's example requests: curl -sH "$T" --json
// 'BODY' localhost:7077PATH.
var docCurl = regexp.MustCompile(`(?m)^curl -sH "\$T" --json '([^']*)' localhost:7077(/\S+)`)

// TestServeDocExample runs docs/serve.md's example requests, in order,
// against mnemo serve with alice's token: the context recalls t1's turn
// into t2's prompt (memctx.recalled, the marked message first), and the
// replay without recalled turns differs from the recorded prompt and
// names what it removed. The example used to load the context of a
// one-message thread, which recalled nothing, and its replay showed no
// difference. mnemo memctx then prints "recalled 1" and "recent 3:".
func TestServeDocExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "serve.md"))
	if err != nil {
		t.Fatal(err)
	}
	reqs := docCurl.FindAllStringSubmatch(string(doc), -1)
	if len(reqs) < 4 {
		t.Fatalf("docs/serve.md: %d example requests, want the appends, search, context and replay", len(reqs))
	}
	tokens := filepath.Join(t.TempDir(), "tokens.json")
	os.WriteFile(tokens, []byte(`{"tokens": [{"name": "alice-app", "token": "s3cret-alice", "resources": ["alice"]}]}`), 0o600)
	dir := filepath.Join(t.TempDir(), "data")
	url, stderr, stop := startServe(t, dir, "--tokens", tokens)
	answers := map[string][]byte{}
	for _, r := range reqs {
		status, out := post(t, url+r[2], "s3cret-alice", json.RawMessage(r[1]))
		if status != 200 {
			t.Fatalf("POST %s %s: %d %s", r[2], r[1], status, out)
		}
		answers[r[2]] = out
	}
	if c := stop(); c != 0 {
		t.Fatalf("serve exit %d: %s", c, stderr.String())
	}
	var ctxAns struct {
		Messages []struct{ Content string }
		MemCtx   journal.MemCtx `json:"memctx"`
	}
	if err := json.Unmarshal(answers["/v1/context"], &ctxAns); err != nil {
		t.Fatal(err)
	}
	rec := ctxAns.MemCtx
	if len(rec.Recalled) == 0 || rec.Recalled[0].ThreadID != "t1" || len(ctxAns.Messages) == 0 || !strings.Contains(ctxAns.Messages[0].Content, "[recalled · thread t1 · seq 1") {
		t.Errorf("the example's context recalled %+v, first message %+v; want t1's turn recalled first", rec.Recalled, ctxAns.Messages)
	}
	var replay struct {
		Original, Counterfactual struct {
			PromptHash string `json:"promptHash"`
			Messages   []json.RawMessage
		}
		Removed []journal.Ref
	}
	if err := json.Unmarshal(answers["/v1/runs/"+rec.RunID+"/replay"], &replay); err != nil {
		t.Fatal(err)
	}
	if replay.Original.PromptHash == replay.Counterfactual.PromptHash || len(replay.Removed) == 0 || len(replay.Counterfactual.Messages) >= len(replay.Original.Messages) {
		t.Errorf("the example's replay shows no difference: %+v", replay)
	}
	code, out, errOut := run(t, nil, "--dir", dir, "memctx", rec.RunID)
	if code != 0 || !strings.Contains(out, "\nrecalled 1:\n") || !strings.Contains(out, "\nrecent 3:\n") {
		t.Errorf("mnemo memctx %s: exit %d, stdout\n%s\nstderr %s\nwant recalled 1 and recent 3", rec.RunID, code, out, errOut)
	}
}

// TestPrintMemCtxDropped: the turns left out are counted whole and those
// left out as unobserved listed up to journal.RecentCap; the line says so
// when it lists fewer, as the recent window's does ("dropped 30 (listed
// 25)" said nothing of why).
func TestPrintMemCtxDropped(t *testing.T) {
	for _, c := range []struct {
		count, listed int
		want          string
	}{
		{2, 2, "\ndropped 2:\n"},
		{30, 25, fmt.Sprintf("\ndropped 30 (25 listed: a record lists at most %d of the turns left out as unobserved):\n", journal.RecentCap)},
	} {
		rec := &journal.MemCtx{RunID: "r", DroppedCount: c.count, Dropped: make([]journal.Ref, c.listed)}
		var b bytes.Buffer
		printMemCtx(&b, rec)
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("dropped %d, %d listed: printed\n%s\nwant %q", c.count, c.listed, b.String(), c.want)
		}
	}
}

// TestPrintMemCtxRecent: the recent window is counted whole and listed up
// to journal.RecentCap; the line says so when it lists fewer ("recent 2
// (listed 2)" said nothing of why both numbers were there).
func TestPrintMemCtxRecent(t *testing.T) {
	for _, c := range []struct {
		count, listed int
		want          string
	}{
		{3, 3, "\nrecent 3:\n"},
		{40, journal.RecentCap, fmt.Sprintf("\nrecent 40 (%d listed: a record lists at most %d of the window's turns):\n", journal.RecentCap, journal.RecentCap)},
	} {
		rec := &journal.MemCtx{RunID: "r", RecentCount: c.count, Recent: make([]journal.Ref, c.listed)}
		var b bytes.Buffer
		printMemCtx(&b, rec)
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("recent %d, %d listed: printed\n%s\nwant %q", c.count, c.listed, b.String(), c.want)
		}
	}
}
