package main

import (
	"context"
	"errors"
	"fmt"
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

// TestCheckEndpoint: a model endpoint that is no http or https URL of a
// host, or holds credentials, a query string, a fragment (given or escaped
// in the path) or path parameters is refused (errBadEndpoint) naming the
// field, with advice naming the variable for the key, never echoing the
// secret part; an API root passes. tok48 (walk47): "localhost:11434/v1?…"
// was told to give the root "localhost:"; ftp://, a URL without a host, an
// escaped query and ;parameters were accepted.
func TestCheckEndpoint(t *testing.T) {
	const alone = "give observe.endpoint the API root alone (%s) and the key in the environment variable MY_KEY; "
	for _, c := range []struct{ base, fault, advice string }{
		{"", "", ""},
		{"http://localhost:11434/v1", "", ""},
		{"HTTPS://example.openai.azure.com/openai/deployments/d", "", ""},
		{secretEndpoint, "holds credentials (user:password@)", fmt.Sprintf(alone, "http://127.0.0.1:9/v1")},
		{"http://127.0.0.1:9/v1?api-key=sk-SECRET2abcdef", "holds a query string (?…)", fmt.Sprintf(alone, "http://127.0.0.1:9/v1")},
		{"http://127.0.0.1:9/v1?", "holds a query string (?…)", ""},
		{"http://127.0.0.1:9/v1#sk-SECRET3", "holds a fragment (#…)", ""},
		{"http://127.0.0.1:9/v1#", "holds a fragment (#…)", ""},
		{"http://[::1:9/v1?k=sk-SECRET4", "is not a URL", ""},
		{"localhost:11434/v1?key=sk-SECRET5", "has no scheme (http:// or https://)",
			"begin observe.endpoint with http:// or https:// (http://localhost:11434/v1; https for a server beyond this machine)"},
		{"127.0.0.1:11434/v1", "has no scheme", "(http://127.0.0.1:11434/v1;"},
		{"u:sk-SECRET6@localhost:11434/v1", "has no scheme", "(http://localhost:11434/v1;"},
		{"localhost:11434/v1?next=http://x", "has no scheme", ""},
		{"ftp://127.0.0.1:9/v1", `has the scheme "ftp": a model is called over http or https only`, "an http or https API root"},
		{"http:///v1", "names no host", "the API root with its host"},
		{"http://127.0.0.1:9/v1%3Fkey=sk-SECRET7", "holds an escaped query string or fragment (%3F or %23 in the path)", fmt.Sprintf(alone, "http://127.0.0.1:9/v1")},
		{"http://127.0.0.1:9/v1%23sk-SECRET8", "holds an escaped query string or fragment", ""},
		{"http://127.0.0.1:9/v1;key=sk-SECRET9", "holds path parameters (;…)", fmt.Sprintf(alone, "http://127.0.0.1:9/v1")},
		{"http://127.0.0.1:9/v1%3Bkey=sk-SECRET9", "holds path parameters (;…)", ""},
		// walk48 F6: the advice of a scheme with one slash; a port, a
		// twice-escaped query, a control character, a host beyond ASCII
		// and a key in the path were accepted.
		{"http:/localhost:9/v1", "has the scheme http: without the two slashes", "(http://localhost:9/v1;"},
		{"HTTPS:example.com/v1", "has the scheme https: without", "(https://example.com/v1;"},
		{"http://localhost:99999/v1", "has the port 99999: a port is 1 to 65535", "with its server's port"},
		{"http://localhost:0/v1", "has the port 0", ""},
		{"http://127.0.0.1:9/v1%253Fkey=sk-SECRET10", "holds a character escaped twice in its path (%25…)", fmt.Sprintf(alone, "http://127.0.0.1:9")},
		{"http://127.0.0.1:9/v1%0a", "holds a control character in its path", fmt.Sprintf(alone, "http://127.0.0.1:9")},
		{"http://ｌｏｃａｌｈｏｓｔ:9/v1", "has a host name with characters beyond ASCII", "its host in ASCII (http://localhost:9/v1)"},
		{"http://例え.jp/v1", "has a host name with characters beyond ASCII", "punycode"},
		{"http://127.0.0.1:9/v1/key=SECRET3", "holds a name=value in its path", fmt.Sprintf(alone, "http://127.0.0.1:9")},
		{"http://127.0.0.1:9/v1/sk-proj-SECRET12abcdefghijklmnop", "holds what reads as a secret in its path", fmt.Sprintf(alone, "http://127.0.0.1:9")},
		{"localhost:9/v1/key=SECRET11", "has no scheme", "(http://localhost:9;"},
		{"http://[::1]:9/v1", "", ""},
	} {
		err := checkEndpoint("observe.endpoint", c.base, "MY_KEY")
		if c.fault == "" {
			if err != nil {
				t.Errorf("%q: %v", c.base, err)
			}
			continue
		}
		var ee *endpointError
		if !errors.Is(err, errBadEndpoint) || !errors.As(err, &ee) || !strings.Contains(err.Error(), "observe.endpoint "+c.fault) ||
			!strings.Contains(ee.Advice, c.advice) || !strings.Contains(ee.Advice, "observe.endpoint") {
			t.Errorf("%q: %v (advice %q), want errBadEndpoint with %q, advice with %q", c.base, err, ee, c.fault, c.advice)
			continue
		}
		if strings.Contains(err.Error()+ee.Advice, "SECRET") || (c.fault[0] == 'h' && c.fault[1] == 'o' && !strings.Contains(ee.Advice, "MY_KEY")) {
			t.Errorf("%q: %v (advice %q): echoes the secret or names no key variable", c.base, err, ee.Advice)
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
	if code != 2 || !strings.Contains(errOut, "observe.endpoint holds credentials") || strings.Count(errOut, "What to do") != 1 || strings.Contains(errOut, "SECRET") ||
		!strings.Contains(errOut, "What to do: give mnemo.json's observe.endpoint the API root alone (http://127.0.0.1:9/v1) and the key in the environment variable OBS_KEY;") {
		t.Fatalf("serve on a stored mnemo.json: exit %d, stderr %s", code, errOut)
	}
	var stderr enginetest.SyncBuffer
	m := &Main{Stdin: strings.NewReader(""), Stdout: &enginetest.SyncBuffer{}, Stderr: &stderr, Getenv: func(k string) string {
		return map[string]string{"MNEMO_EMBEDDER": "hash-384", "MNEMO_MODEL": "m", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1?key=sk-SECRET5"}[k]
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if code := m.Run(ctx, []string{"--dir", t.TempDir(), "observe", "--thread", "o1"}); code != 2 ||
		!strings.Contains(stderr.String(), "OPENAI_BASE_URL holds a query string") || strings.Contains(stderr.String(), "SECRET") ||
		!strings.Contains(stderr.String(), "\nWhat to do: give OPENAI_BASE_URL the API root alone (http://127.0.0.1:9/v1) and the key in the environment variable OPENAI_API_KEY;") {
		t.Fatalf("observe with OPENAI_BASE_URL: exit %d, stderr %s", code, stderr.String())
	}
}
