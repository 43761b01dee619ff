package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestOpenAIClientNeedsKey: walk43 F11. `mnemo observe` with MNEMO_MODEL
// set and neither OPENAI_API_KEY nor OPENAI_BASE_URL posted the
// conversation to https://api.openai.com unauthenticated (a 401 after the
// text had left). Every command that builds an OpenAI-compatible client
// (the observer model, from the environment or mnemo.json; the openai
// embedder; the re-ranker) now refuses before any call, exit 2, naming
// what to set; a base URL without a key (a local server) is allowed.
func TestOpenAIClientNeedsKey(t *testing.T) {
	dir := storedDir(t, engine.Config{}, false, inThreadT(engine.Message{ID: "m1", Role: "user", Content: "charge my card"}))
	stored := storedDir(t, engine.Config{}, false, inThreadT(engine.Message{ID: "m1", Role: "user", Content: "charge my card"}))
	if err := os.WriteFile(filepath.Join(stored, StoredConfigFile), []byte(`{"observe": {"model": "from-config"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		dir  string
		env  map[string]string
		args []string
		want []string // in standard error; nil: not refused for the key
	}{
		{"ObserveEnv", dir, map[string]string{"MNEMO_MODEL": "gpt-4o-mini"}, []string{"observe", "--thread", "t"},
			[]string{"mnemo observe: no API key: MNEMO_MODEL=gpt-4o-mini would send the text to OpenAI's API (https://api.openai.com/v1) with no key: set OPENAI_API_KEY, or OPENAI_BASE_URL"}},
		{"ObserveStored", stored, nil, []string{"observe", "--thread", "t"},
			[]string{"mnemo.json's observe model from-config would send", "set OPENAI_API_KEY, or mnemo.json's observe.endpoint"}},
		{"Embedder", dir, map[string]string{"MNEMO_EMBED_MODEL": "text-embedding-3-small"}, []string{"--embedder", "openai", "search", "--resource", "r", "card"},
			[]string{"the openai embedder (MNEMO_EMBED_MODEL=text-embedding-3-small) would send", "set OPENAI_API_KEY, or OPENAI_BASE_URL"}},
		{"Rerank", dir, map[string]string{"MNEMO_RERANK_MODEL": "bge"}, []string{"search", "--resource", "r", "card"},
			[]string{"MNEMO_RERANK_MODEL=bge would send", "set OPENAI_API_KEY, or MNEMO_RERANK_BASE_URL (or OPENAI_BASE_URL)"}},
		{"OpenAIURL", dir, map[string]string{"MNEMO_MODEL": "gpt-4o-mini", "OPENAI_BASE_URL": "https://API.OpenAI.com/v1/"}, []string{"observe", "--thread", "t", "--force"},
			[]string{"mnemo observe: no API key: MNEMO_MODEL=gpt-4o-mini would send the text to OpenAI's API (https://API.OpenAI.com/v1/) with no key"}},
		{"BlankKey", dir, map[string]string{"MNEMO_RERANK_MODEL": "bge", "OPENAI_API_KEY": " \t"}, []string{"search", "--resource", "r", "card"},
			[]string{"MNEMO_RERANK_MODEL=bge would send the text to OpenAI's API (https://api.openai.com/v1) with a key of blanks only"}},
		{"LocalServer", dir, map[string]string{"MNEMO_MODEL": "m", "OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}, []string{"observe", "--thread", "t", "--force"}, nil},
		{"KeyOnly", dir, map[string]string{"MNEMO_RERANK_MODEL": "bge", "OPENAI_API_KEY": "sk-x", "MNEMO_RERANK_BASE_URL": "http://127.0.0.1:1/v1"}, []string{"search", "--resource", "r", "card"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := run(t, c.env, append([]string{"--dir", c.dir}, c.args...)...)
			if c.want == nil {
				if code == 2 || strings.Contains(stderr, "no API key") {
					t.Errorf("refused: exit %d\n%s", code, stderr)
				}
				return
			}
			if code != 2 {
				t.Errorf("exit %d, want 2\n%s", code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("standard error:\n%s\nwant it to hold %q", stderr, w)
				}
			}
		})
	}
}

// TestNeedKeyOpenAIURL: walk44 F5. A base URL naming OpenAI's own API
// passed for a local server, and a key of blanks for a key, so the text
// went to OpenAI for a 401; now both are refused, and any other host
// without a key is still allowed.
func TestNeedKeyOpenAIURL(t *testing.T) {
	for _, c := range []struct {
		base, key string
		refused   bool
	}{
		{"", "", true},
		{"https://api.openai.com/v1", "", true},
		{"https://api.openai.com/v1/", "", true},
		{"https://API.OpenAI.com/v1", "", true},
		{"http://api.openai.com/v1", "", true},
		{"https://api.openai.com./v1", "", true},
		{"https://api.openai.com:443/v1", "", true},
		{" https://api.openai.com/v1 ", "", true},
		{"", " ", true},
		{"", "\t\n", true},
		{"https://api.openai.com/v1", "  ", true},
		{"", "sk-x", false},
		{"https://api.openai.com/v1", "sk-x", false},
		{"http://127.0.0.1:8080/v1", "", false},
		{"http://localhost:11434/v1", " ", false},
		{"https://api.openai.com.example.net/v1", "", false},
		{"https://openai.example/api.openai.com/v1", "", false},
	} {
		err := needKey("m", c.base, c.key, "OPENAI_BASE_URL", "OPENAI_API_KEY")
		if got := errors.Is(err, errNoAPIKey); got != c.refused {
			t.Errorf("base %q key %q: %v, want refused %v", c.base, c.key, err, c.refused)
		}
	}
}
