package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeRequestTimeout: mnemo.json's server.requestTimeout reaches the
// server (server.Config.RequestTimeout): with "1ns" every API request is
// past its deadline when it starts and answers 503 "timeout", naming the
// configured duration. Before, mnemo serve had no way to set it (a large
// resource's erasure past the default minute could not be given longer).
func TestServeRequestTimeout(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "mnemo.json")
	if err := os.WriteFile(cfg, []byte(`{"server": {"requestTimeout": "1ns"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	url, _, stop := startServe(t, filepath.Join(t.TempDir(), "data"), "--config", cfg)
	defer stop()
	status, body := post(t, url+"/v1/threads/t1/messages", "", map[string]any{"resourceId": "r",
		"messages": []map[string]any{{"role": "user", "content": "hello"}}})
	if status != 503 || !strings.Contains(string(body), "timeout") || !strings.Contains(string(body), "(1ns)") {
		t.Errorf("append past server.requestTimeout: %d %.300s; want 503 timeout naming 1ns", status, body)
	}
}
