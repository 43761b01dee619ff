package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// startServe runs `mnemo serve` in-process on a free loopback port and
// returns its URL, its stderr and a stop function returning the exit code.
func startServe(t *testing.T, dir string, args ...string) (string, *enginetest.SyncBuffer, func() int) {
	t.Helper()
	return startServeOn(t, []string{"--dir", dir}, args...)
}

// startServeOn is startServe on the target the global flags where give
// ("--db", dsn).
func startServeOn(t *testing.T, where []string, args ...string) (string, *enginetest.SyncBuffer, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &enginetest.SyncBuffer{}
	m := &Main{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: stderr, Getenv: func(k string) string {
		if k == "MNEMO_EMBEDDER" {
			return "hash-384"
		}
		return ""
	}}
	code := make(chan int, 1)
	go func() {
		code <- m.Run(ctx, append(append(where, "serve", "--listen", "127.0.0.1:0"), args...))
	}()
	re := regexp.MustCompile(`listening on (http://[0-9.:]+)`)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			stop := func() int { cancel(); return <-code }
			return m[1], stderr, stop
		}
		select {
		case c := <-code:
			cancel()
			t.Fatalf("serve exited %d: %s", c, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	t.Fatalf("serve did not start: %s", stderr.String())
	return "", nil, nil
}

func post(t *testing.T, url, token string, body any) (int, []byte) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, out
}

type bearerRT struct{ token string }

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestServe: mnemo serve with --tokens and --config serves the API with the
// configured working memory; while it runs other commands on the directory
// fail at once saying so; on SIGINT (context end) it stops with exit 0, and
// afterwards the CLI renders and validates working memory with the stored
// configuration.
func TestServe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	tmp := t.TempDir()
	tokens := filepath.Join(tmp, "tokens.json")
	os.WriteFile(tokens, []byte(`{"tokens":[{"name":"app","token":"app-secret-1","resources":["r1"]}]}`), 0o600)
	schema := filepath.Join(tmp, "profile.schema.json")
	os.WriteFile(schema, []byte(`{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"additionalProperties":false}`), 0o600)
	cfg := filepath.Join(tmp, "mnemo-config.json")
	os.WriteFile(cfg, []byte(`{"recentN": 4, "workingMemory": {"schemaFile": "profile.schema.json", "scope": "thread"}}`), 0o600)

	url, stderr, stop := startServe(t, dir, "--tokens", tokens, "--config", cfg)
	status, body := post(t, url+"/v1/threads/t1/messages", "app-secret-1", map[string]any{"resourceId": "r1", "messages": []map[string]any{{"role": "user", "content": "hi, I am Ana"}}})
	if status != 200 {
		t.Fatalf("append: %d %s", status, body)
	}
	if status, body := post(t, url+"/v1/threads/t1/messages", "", map[string]any{"resourceId": "r1"}); status != 401 {
		t.Fatalf("append without a token: %d %s", status, body)
	}
	req, _ := http.NewRequest("PUT", url+"/v1/threads/t1/working-memory", strings.NewReader(`{"patch":{"name":"Ana"}}`))
	req.Header.Set("Authorization", "Bearer app-secret-1")
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("working memory update: %v %v", err, res)
	}
	res.Body.Close()
	status, body = post(t, url+"/v1/context", "app-secret-1", map[string]any{"threadId": "t1", "runId": "run-1"})
	if status != 200 || !strings.Contains(string(body), `\"name\": \"Ana\"`) {
		t.Fatalf("context without the working memory: %d %s", status, body)
	}
	code, _, errOut := run(t, nil, "--dir", dir, "threads")
	if code != 1 || !strings.Contains(errOut, "held by mnemo serve") || !strings.Contains(errOut, url) {
		t.Fatalf("threads while served: exit %d, %q", code, errOut)
	}
	// An MCP client over streamable HTTP with the same token; its
	// standalone SSE stream must not hold the shutdown.
	hc := &http.Client{Transport: bearerRT{"app-secret-1"}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		t.Fatalf("mcp over http: %v", err)
	}
	defer cs.Close()
	if r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "working_memory_get", Arguments: map[string]any{"threadId": "t1"}}); err != nil || r.IsError {
		t.Fatalf("mcp tool over http: %v %+v", err, r)
	}
	time.Sleep(100 * time.Millisecond) // the SSE stream is open
	start := time.Now()
	if c := stop(); c != 0 {
		t.Fatalf("serve exit %d: %s", c, stderr.String())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("shutdown took %v with an MCP stream open", d)
	}
	if log := stderr.String(); !strings.Contains(log, `"route":"POST /v1/context"`) || !strings.Contains(log, "stopped") {
		t.Fatalf("serve log lacks the access log or the stop line:\n%s", log)
	}
	// serve.lock stays, empty: the lock is a flock on it, and removing the
	// file would race a serve starting meanwhile (servelock_unix.go).
	if runtime.GOOS != "windows" {
		if b, err := os.ReadFile(filepath.Join(dir, ServeLockFile)); err != nil || len(b) != 0 {
			t.Fatalf("serve.lock after a clean stop: %q, %v; want it kept, empty", b, err)
		}
	}

	// After the server: the CLI uses the stored configuration.
	code, out, errOut := run(t, nil, "--dir", dir, "context", "--thread", "t1", "--json")
	if code != 0 || !strings.Contains(out, `\"name\": \"Ana\"`) {
		t.Fatalf("mnemo context after serve: exit %d %s %s", code, out, errOut)
	}
	bad := filepath.Join(tmp, "bad.json")
	os.WriteFile(bad, []byte(`{"name":"Ana","age":"old"}`), 0o600)
	code, _, errOut = run(t, nil, "--dir", dir, "wm", "set", "--thread", "t1", bad)
	if code == 0 || !strings.Contains(errOut, "age") {
		t.Fatalf("wm set of a state the stored schema rejects: exit %d %q", code, errOut)
	}
}

// TestServeRefusesPublicListen: without --tokens, an address beyond
// loopback is a usage error that says why in one line, then the help
// hint (the whole usage followed it, burying the line); an address
// without a port says so.
// TestServeBusyPort: readme51 F10. A second serve on the port of the
// first (a second data directory served beside it) said only "bind:
// address already in use"; now it says how to choose another port.
func TestServeBusyPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, _, errOut := run(t, nil, "--dir", t.TempDir(), "serve", "--listen", ln.Addr().String())
	if code != 1 || !strings.Contains(errOut, "address already in use") || !strings.Contains(errOut, "choose another with --listen 127.0.0.1:PORT") {
		t.Fatalf("serve on a busy port: exit %d, stderr %q; want 1 and the --listen hint", code, errOut)
	}
}

func TestServeRefusesPublicListen(t *testing.T) {
	for _, c := range []struct{ listen, want string }{
		{"0.0.0.0:7077", "mnemo serve: --listen 0.0.0.0:7077 is not a loopback address (localhost, 127.0.0.1, [::1]), so it may be reachable beyond this machine, " +
			"and without a token file every request acts as the operator: give --tokens FILE, or listen on 127.0.0.1:7077"},
		{"0.0.0.0", `mnemo serve: --listen "0.0.0.0" has no port: give HOST:PORT, e.g. 0.0.0.0:7077`},
		// A number is the port (readme57: it said "e.g. 7081:7077").
		// ... and what it lacks is the host (cli58: it said "has no port").
		{"7081", `mnemo serve: --listen "7081" has no host: give HOST:PORT, e.g. 127.0.0.1:7081`},
		// A port past 65535 is a value error naming the flag (it was
		// net.Listen's "address 99999: invalid port", exit 1).
		{"127.0.0.1:99999", `mnemo serve: --listen "127.0.0.1:99999": the port must be within 0 to 65535, got 99999`},
		// A URL (it said "too many colons in address").
		{"http://127.0.0.1:7081", `mnemo serve: --listen "http://127.0.0.1:7081": give HOST:PORT without a scheme, e.g. 127.0.0.1:7081`},
	} {
		code, out, errOut := run(t, nil, "--dir", t.TempDir(), "serve", "--listen", c.listen)
		if want := c.want + "\nRun 'mnemo help serve' for the flags.\n"; code != 2 || out != "" || errOut != want {
			t.Errorf("--listen %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.listen, code, out, errOut, want)
		}
	}
	// A name that is not localhost is not known to be loopback (it said
	// "is reachable beyond this machine" of any name, even a malformed one).
	code, _, errOut := run(t, nil, "--dir", t.TempDir(), "serve", "--listen", "mnemo.test:0")
	if code != 2 || !strings.Contains(errOut, "is not a loopback address") {
		t.Fatalf("a host name: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = run(t, nil, "--dir", t.TempDir(), "serve", "--listen", "127.0.0.1:0", "--config", filepath.Join(t.TempDir(), "missing.json"))
	if code != 1 || !strings.Contains(errOut, "missing.json") {
		t.Fatalf("missing config: exit %d, stderr %q", code, errOut)
	}
	// An empty --config or --tokens file says so (it said only "EOF").
	empty := filepath.Join(t.TempDir(), "empty.json")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--config", "--tokens"} {
		code, _, errOut = run(t, nil, "--dir", t.TempDir(), "serve", "--listen", "127.0.0.1:0", flag, empty)
		if code != 1 || !strings.Contains(errOut, "the file is empty") || flag == "--config" && !strings.Contains(errOut, "docs/serve.md") {
			t.Errorf("empty %s file: exit %d, stderr %q; want 1 and the file is empty (--config: see docs/serve.md)", flag, code, errOut)
		}
	}
}

// TestMemCtxHTML: mnemo memctx RUN --html FILE writes the inspector's run
// page as one self-contained file: the timeline, the replay check, no
// script, nothing loaded from elsewhere.
func TestMemCtxHTML(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(t.TempDir(), "conv.jsonl")
	os.WriteFile(in, []byte(`{"thread":"t1","resource":"r1","role":"user","content":"the boat is moored at pier 9"}
{"thread":"t1","resource":"r1","role":"assistant","content":"pier 9, noted"}
{"thread":"t1","resource":"r1","role":"user","content":"where is the boat?"}
`), 0o600)
	if code, _, errOut := run(t, nil, "--dir", dir, "ingest", in); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	if code, _, errOut := run(t, nil, "--dir", dir, "context", "--thread", "t1", "--run-id", "run-h", "--recent", "1", "--top-k", "2"); code != 0 {
		t.Fatalf("context: %d %s", code, errOut)
	}
	page := filepath.Join(t.TempDir(), "run.html")
	if code, _, errOut := run(t, nil, "--dir", dir, "memctx", "run-h", "--html", page); code != 0 {
		t.Fatalf("memctx --html: %d %s", code, errOut)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, want := range []string{"run run-h", "The prompt, top to bottom", "recalled hit", "pier 9", "✓ reproduced", "<style>"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", `src="http`, `href="http`, `href="/ui/`} {
		if strings.Contains(html, bad) {
			t.Errorf("page has %q: not self-contained", bad)
		}
	}
}
