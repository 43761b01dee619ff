package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/server"
)

// TestObservationsJSONIsAPIElement: mnemo observations --json prints the
// elements of GET /v1/threads/{thread}/observations, member for member,
// source turns' date span (fromTime, toTime) included. Before, the CLI
// printed observe.Observation, whose fromTime and toTime the API's
// element lacked, while docs/cli.md says a --json listing prints the
// API's elements.
func TestObservationsJSONIsAPIElement(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", filepath.Join("..", "..", "demodata", "conversation.jsonl")); code != 0 {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		return openaitest.Text(fmt.Sprintf(`{"observations":[{"text":"Ana plans a train trip from Lyon to Porto","seqs":[%d]}]}`, enginetest.ChunkSeq(req, 0))).Response, nil
	}))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": openaitest.DefaultAPIKey, "MNEMO_MODEL": "fake-observer"}
	if code, _, stderr := run(t, env, "--dir", dir, "observe", "--thread", "ana:trip-planning", "--force", "--recent", "4", "--no-reflect"); code != 0 {
		t.Fatalf("observe exit %d: %s", code, stderr)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "observations", "--thread", "ana:trip-planning", "--json")
	if code != 0 {
		t.Fatalf("observations exit %d: %s", code, stderr)
	}
	var cli []map[string]any
	if err := json.Unmarshal([]byte(out), &cli); err != nil {
		t.Fatalf("observations --json: %v\n%s", err, out)
	}
	api := apiObservations(t, dir, "/v1/threads/ana:trip-planning/observations")
	if len(api) == 0 || api[0]["fromTime"] == nil || api[0]["toTime"] == nil {
		t.Errorf("API observations without their date span: %v", api)
	}
	if !reflect.DeepEqual(cli, api) {
		t.Errorf("observations --json:\n%v\nthe API's elements:\n%v", cli, api)
	}
}

// apiObservations opens dir's engine and answers GET path over the HTTP
// API on loopback: the elements of its observations.
func apiObservations(t *testing.T, dir, path string) []map[string]any {
	t.Helper()
	e, err := engine.Open(context.Background(), engine.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s, err := server.New(server.Config{Engine: e})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	resp, err := http.Get(ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var page struct {
		Observations []map[string]any `json:"observations"`
	}
	if err := json.NewDecoder(strings.NewReader(string(b))).Decode(&page); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v: %s", path, resp.StatusCode, err, b)
	}
	return page.Observations
}
