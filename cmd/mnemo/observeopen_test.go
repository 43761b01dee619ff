package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/openaitest"
)

// TestObserveOpensAsEveryCommand: mnemo observe on a path holding no
// mnemo.db fails (exit 1, not a data directory) and creates nothing, as
// every command but the writing ones; on a data directory it uses the
// stored configuration (mnemo.json): the observe section's model, endpoint
// and apiKeyEnv when MNEMO_MODEL is unset, and its threshold and recentN.
// Before, it created a data directory there (and failed "thread not
// found"), and ignored mnemo.json ("MNEMO_MODEL is not set", the default
// 30,000-token threshold).
func TestObserveOpensAsEveryCommand(t *testing.T) {
	fresh := filepath.Join(t.TempDir(), "new")
	env := map[string]string{"MNEMO_MODEL": "m", "OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}
	code, _, stderr := run(t, env, "--dir", fresh, "observe", "--thread", "t1")
	if code != 1 || !strings.Contains(stderr, "not a mnemo data directory") {
		t.Errorf("observe on a new path: exit %d, %q; want 1, not a data directory", code, stderr)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("observe on a new path created it (%v)", err)
	}

	dir := t.TempDir()
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", filepath.Join(".", "../../demodata/conversation.jsonl")); code != 0 {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	var mu sync.Mutex
	var models []string
	srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		mu.Lock()
		models = append(models, req.Model)
		mu.Unlock()
		// No citation: the chunks after the first do not hold seq 1, and an
		// item citing only seqs outside its chunk is dropped.
		return openaitest.Text(`{"observations":[{"text":"Ana plans a train trip from Lyon to Porto"}]}`).Response, nil
	}))
	cfg := `{"recentN": 4, "observe": {"endpoint": "` + srv.URL + `", "model": "from-config", "apiKeyEnv": "MY_KEY", "threshold": 1}}`
	if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, map[string]string{"MY_KEY": openaitest.DefaultAPIKey}, "--dir", dir, "observe", "--thread", "ana:trip-planning", "--no-reflect")
	if code != 0 || !strings.Contains(out, "observed ") {
		t.Fatalf("observe with mnemo.json's model: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(models) == 0 || models[0] != "from-config" {
		t.Fatalf("the model was called as %v, want from-config", models)
	}
}
