package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// secretEndpoint is walk46's F2 endpoint: a password in userinfo and a key
// in the query.
const secretEndpoint = "http://user:sk-proj-SECRETKEY12345678@127.0.0.1:9/v1?api-key=sk-SECRET2abcdef"

// TestCheckEndpoint: a model endpoint with credentials, a query string or
// a fragment is refused (errBadEndpoint) naming the field and the
// variable for the key, never echoing the secret part; an API root passes.
func TestCheckEndpoint(t *testing.T) {
	for _, c := range []struct{ base, want string }{
		{"", ""},
		{"http://localhost:11434/v1", ""},
		{"https://example.openai.azure.com/openai/deployments/d", ""},
		{secretEndpoint, "holds credentials (user:password@): give the API root alone (http://127.0.0.1:9/v1)"},
		{"http://127.0.0.1:9/v1?api-key=sk-SECRET2abcdef", "holds a query string (?…)"},
		{"http://127.0.0.1:9/v1?", "holds a query string (?…)"},
		{"http://127.0.0.1:9/v1#sk-SECRET3", "holds a fragment (#…)"},
		{"http://127.0.0.1:9/v1#", "holds a fragment (#…)"},
		{"http://[::1:9/v1?k=sk-SECRET4", "is not a URL"},
	} {
		err := checkEndpoint("observe.endpoint", c.base, "MY_KEY")
		if c.want == "" {
			if err != nil {
				t.Errorf("%q: %v", c.base, err)
			}
			continue
		}
		if !errors.Is(err, errBadEndpoint) || !strings.Contains(err.Error(), "observe.endpoint "+c.want) {
			t.Errorf("%q: %v, want errBadEndpoint with %q", c.base, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), "SECRET") || (c.want[0] == 'h' && !strings.Contains(err.Error(), "MY_KEY")) {
			t.Errorf("%q: %v: echoes the secret or names no key variable", c.base, err)
		}
	}
}

// TestServeRefusesSecretEndpoint: `mnemo serve --config` whose
// observe.endpoint holds credentials and a query string exits 2 before
// listening, naming observe.endpoint and apiKeyEnv's variable, printing
// neither secret, and stores nothing; a data directory whose stored
// mnemo.json already holds one is refused by serve alike (with what to
// do), and `mnemo observe` with OPENAI_BASE_URL holding a query is
// refused naming OPENAI_BASE_URL. Before, serve listened and stored the
// endpoint verbatim, and the model call's error printed the query's key
// ("…/v1?api-key=sk-SECRET2abcdef/chat/completions").
func TestServeRefusesSecretEndpoint(t *testing.T) {
	dir, cfgDir := t.TempDir(), t.TempDir()
	cfg := filepath.Join(cfgDir, "cfg.json")
	body := `{"observe":{"endpoint":"` + secretEndpoint + `","model":"m","apiKeyEnv":"OBS_KEY"}}`
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	code, errOut := runFor(t, 20*time.Second, "--dir", dir, "serve", "--config", cfg, "--listen", "127.0.0.1:0")
	if code != 2 || !strings.Contains(errOut, "observe.endpoint holds credentials") || !strings.Contains(errOut, "OBS_KEY") || strings.Contains(errOut, "SECRET") {
		t.Fatalf("serve --config: exit %d, stderr %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, StoredConfigFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("mnemo.json stored: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	code, errOut = runFor(t, 20*time.Second, "--dir", dir, "serve", "--listen", "127.0.0.1:0")
	if code != 2 || !strings.Contains(errOut, "observe.endpoint holds credentials") || !strings.Contains(errOut, "What to do") || strings.Contains(errOut, "SECRET") {
		t.Fatalf("serve on a stored mnemo.json: exit %d, stderr %s", code, errOut)
	}
	var stderr enginetest.SyncBuffer
	m := &Main{Stdin: strings.NewReader(""), Stdout: &enginetest.SyncBuffer{}, Stderr: &stderr, Getenv: func(k string) string {
		return map[string]string{"MNEMO_EMBEDDER": "hash-384", "MNEMO_MODEL": "m", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1?key=sk-SECRET5"}[k]
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if code := m.Run(ctx, []string{"--dir", t.TempDir(), "observe", "--thread", "o1"}); code != 2 ||
		!strings.Contains(stderr.String(), "OPENAI_BASE_URL holds a query string") || strings.Contains(stderr.String(), "SECRET") {
		t.Fatalf("observe with OPENAI_BASE_URL: exit %d, stderr %s", code, stderr.String())
	}
}
