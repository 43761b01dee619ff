package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestReplayAnswerBound: a run recorded under a larger
// limits.maxAnswerBytes (its window of six 100 KB messages, 600 KB) is not
// replayed under a bound of 300,000 bytes, and says so naming the setting:
// mnemo replay (text and --json) exits 1 with nothing on standard output,
// POST /v1/runs/{run}/replay is 422 answer-too-large, and the inspector's
// run page shows the record and says the run was not replayed. With the
// bound raised again it replays. Before, a replay read the run's turns
// whatever their size.
func TestReplayAnswerBound(t *testing.T) {
	dir := bigMessagesDir(t, 0)
	if code, _, stderr := run(t, nil, "--dir", dir, "context", "--thread", "t1", "--run-id", "big", "--recent", "6"); code != 0 {
		t.Fatalf("context: exit %d %s", code, stderr)
	}
	setMaxAnswer(t, dir, 300_000)
	want := "run big cannot be replayed: its turns pass 300000 bytes (limits.maxAnswerBytes in mnemo.json); a larger limits.maxAnswerBytes replays it"
	for _, args := range [][]string{{"replay", "big"}, {"replay", "--json", "big"}, {"replay", "--without", "recalled", "big"}} {
		code, stdout, stderr := run(t, nil, append([]string{"--dir", dir}, args...)...)
		if code != 1 || stdout != "" || !strings.Contains(stderr, want) {
			t.Fatalf("%v: exit %d, stdout %.200q, stderr %q; want 1, nothing, and %q", args, code, stdout, stderr, want)
		}
	}

	url, logs, stop := startServe(t, dir)
	status, body := post(t, url+"/v1/runs/big/replay", "", map[string]any{})
	var p struct{ Type, Detail string }
	if err := json.Unmarshal(body, &p); err != nil || status != 422 || !strings.HasSuffix(p.Type, "/answer-too-large") || !strings.Contains(p.Detail, "limits.maxAnswerBytes") {
		t.Fatalf("POST replay: %d %.300s (%v), want 422 answer-too-large naming limits.maxAnswerBytes\n%s", status, body, err, logs.String())
	}
	res, err := http.Get(url + "/ui/runs/big")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(page), "The run was not replayed: its turns pass 300000 bytes (limits.maxAnswerBytes)") || strings.Contains(string(page), `id="replay-messages"`) {
		t.Fatalf("run page: %d, want 200 saying the run was not replayed, and no replayed messages:\n%.2000s", res.StatusCode, page)
	}
	stop()

	setMaxAnswer(t, dir, 1_000_000)
	if code, stdout, stderr := run(t, nil, "--dir", dir, "replay", "big"); code != 0 || !strings.Contains(stdout, "replay reproduced the recorded prompt") {
		t.Fatalf("replay within the bound: exit %d %s\n%.300s", code, stderr, stdout)
	}
}
