package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/server"
)

// TestObserveInterruptedCountsAll is readme72 F4: `mnemo observe`
// interrupted after its first run of the observer (16 model calls) said
// "interrupted: 3 observation(s) stored", the last run's count,
// when the command stored 19. It now counts every run's, with and
// without --json, whose observations and pending watermark are the
// stored ones. The interrupt comes from the fake's 20th call.
func TestObserveInterruptedCountsAll(t *testing.T) {
	dir := longThreadsDir(t, "text", "json")
	var calls atomic.Int64
	var cancel atomic.Pointer[context.CancelFunc]
	srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		if calls.Add(1) == observe.DefaultMaxRounds+4 {
			(*cancel.Load())()
		}
		return openaitest.Text(fmt.Sprintf(`{"observations":[{"text":"a train leaves at seven","seqs":[%d]}]}`, enginetest.ChunkSeq(req, 0))).Response, nil
	}))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": openaitest.DefaultAPIKey, "MNEMO_MODEL": "fake-observer", "MNEMO_EMBEDDER": "hash-384"}
	interrupted := func(thread string, extra ...string) (int, string, string) {
		calls.Store(0)
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		cancel.Store(&stop)
		var out, errOut strings.Builder
		m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return env[k] }}
		args := append([]string{"--dir", dir, "observe", "--thread", thread, "--force", "--threshold", "120", "--recent", "4", "--no-reflect"}, extra...)
		return m.Run(ctx, args), out.String(), errOut.String()
	}
	said := regexp.MustCompile(`mnemo observe: interrupted: (\d+) observation\(s\) stored, then: .*context canceled`)

	code, out, stderr := interrupted("text")
	m := said.FindStringSubmatch(stderr)
	observed := strings.Count(out, "observed ")
	if code == 0 || m == nil || m[1] != fmt.Sprint(observed) || observed <= observe.DefaultMaxRounds {
		t.Fatalf("observe interrupted: exit %d, %d observed lines (want more than %d), stderr %q: want their count", code, observed, observe.DefaultMaxRounds, stderr)
	}
	if wm := storedWatermark(t, dir, "text"); !strings.Contains(out, fmt.Sprintf("watermark %d;", wm)) {
		t.Errorf("observe interrupted: want the stored watermark %d:\n%s", wm, out)
	}

	code, out, stderr = interrupted("json", "--json")
	var res observe.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || code == 0 {
		t.Fatalf("observe --json interrupted: exit %d, %v:\n%s", code, err, out)
	}
	if m := said.FindStringSubmatch(stderr); m == nil || m[1] != fmt.Sprint(len(res.Observations)) || len(res.Observations) <= observe.DefaultMaxRounds {
		t.Errorf("observe --json interrupted: %d observations, stderr %q: want their count", len(res.Observations), stderr)
	}
	if wm := storedWatermark(t, dir, "json"); res.Pending.Watermark != wm {
		t.Errorf("observe --json interrupted: pending watermark %d, want the stored %d", res.Pending.Watermark, wm)
	}
}

// storedWatermark is the highest toSeq of thread's observations.
func storedWatermark(t *testing.T, dir, thread string) int64 {
	t.Helper()
	code, out, stderr := run(t, nil, "--dir", dir, "observations", "--thread", thread, "--all", "--json")
	var obs []server.Observation
	if err := json.Unmarshal([]byte(out), &obs); code != 0 || err != nil {
		t.Fatalf("observations: exit %d, %v: %s", code, err, stderr)
	}
	wm := int64(0)
	for _, o := range obs {
		wm = max(wm, o.ToSeq)
	}
	return wm
}
