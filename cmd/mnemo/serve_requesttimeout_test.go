package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeRequestTimeout: mnemo.json's server.requestTimeout reaches the
// server (server.Config.RequestTimeout): with "1s", an append whose body
// arrives 1.3 s after its headers answers 503 "timeout", naming the
// configured duration. Before, mnemo serve had no way to set it (a large
// resource's erasure past the default minute could not be given longer).
func TestServeRequestTimeout(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "mnemo.json")
	if err := os.WriteFile(cfg, []byte(`{"server": {"requestTimeout": "1s"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	url, _, stop := startServe(t, filepath.Join(t.TempDir(), "data"), "--config", cfg)
	defer stop()
	body, w := io.Pipe()
	go func() {
		time.Sleep(1300 * time.Millisecond)
		_, _ = w.Write([]byte(`{"resourceId":"r","messages":[{"role":"user","content":"hello"}]}`))
		w.Close()
	}()
	req, err := http.NewRequest("POST", url+"/v1/threads/t1/messages", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if res.StatusCode != 503 || !strings.Contains(string(out), "timeout") || !strings.Contains(string(out), "(1s)") {
		t.Errorf("append past server.requestTimeout: %d %.300s; want 503 timeout naming 1s", res.StatusCode, out)
	}
}

// TestServeRequestTimeoutTooShort: mnemo serve refuses to start with a
// server.requestTimeout below 1s (server.MinRequestTimeout), naming the
// field, the value and the bound, and creates nothing. Before, "1ns" was
// taken and every request answered 503 "timeout", a malformed body's 400
// included.
func TestServeRequestTimeoutTooShort(t *testing.T) {
	for _, d := range []string{"1ns", "999ms"} {
		cfg := filepath.Join(t.TempDir(), "mnemo.json")
		if err := os.WriteFile(cfg, []byte(`{"server": {"requestTimeout": "`+d+`"}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "data")
		// A serve that starts stops at the context's end (exit 0).
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var errBuf strings.Builder
		m := &Main{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &errBuf, Getenv: func(string) string { return "" }}
		code := m.Run(ctx, []string{"--dir", dir, "serve", "--listen", "127.0.0.1:0", "--config", cfg})
		cancel()
		errOut := errBuf.String()
		if want := `server.requestTimeout: "` + d + `" is below 1s, the shortest`; code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("serve with requestTimeout %s: exit %d, %q; want 1 and %q", d, code, errOut, want)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("requestTimeout %s: the data directory was created (%v)", d, err)
		}
	}
}
