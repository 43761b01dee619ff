package main

import (
	"context"
	"os"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// The set-up of the tests that damage a data directory and run check,
// salvage or delete on it: a directory an engine stored messages in and
// closed (storedDir), then a file of it changed in place (rewriteFile).

// storedDir returns a new data directory in which an engine opened with
// cfg (Dir set to the directory; the hash embedder when cfg names none)
// made reqs, one Append each in order, and was closed; with sync it
// brought both indexes up to date before closing.
func storedDir(t *testing.T, cfg engine.Config, sync bool, reqs ...engine.AppendRequest) string {
	t.Helper()
	ctx := context.Background()
	cfg.Dir = t.TempDir()
	if cfg.Embedder == nil {
		cfg.Embedder = recall.HashEmbedder{}
	}
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range reqs {
		if _, err := e.Append(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	if sync {
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return cfg.Dir
}

// inThreadT is an Append of msgs to thread t of resource r.
func inThreadT(msgs ...engine.Message) engine.AppendRequest {
	return engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}
}

// rewriteFile replaces the contents of the file at path with what edit
// makes of them.
func rewriteFile(t *testing.T, path string, edit func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, edit(b), 0o600); err != nil {
		t.Fatal(err)
	}
}
