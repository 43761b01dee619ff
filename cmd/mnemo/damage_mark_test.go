package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestDamageKnownToNextCommand: the damage one command met is known to
// the next: mnemo messages meets a damaged page of thread t; a later
// mnemo ingest into the sound thread u is refused, saying how to clear it;
// mnemo check --full clears it once the file is restored, and ingest
// stores again. Before, the next ingest stored into the damaged file.
func TestDamageKnownToNextCommand(t *testing.T) {
	const marker = "zanzibar-lighthouse-keeper"
	var reqs []engine.AppendRequest
	for _, th := range []string{"t", "u"} {
		req := engine.AppendRequest{ThreadID: th, ResourceID: "r"}
		for i := range 60 {
			text := fmt.Sprintf("%s message %d about the weather in a town by the sea, with words that take room", th, i)
			if th == "t" && i == 30 {
				text = "the " + marker + " said the refund was approved"
			}
			req.Messages = append(req.Messages, engine.Message{Role: engine.RoleUser, Content: text})
		}
		reqs = append(reqs, req)
	}
	dir := storedDir(t, engine.Config{}, true, reqs...)
	path := filepath.Join(dir, engine.DatabaseFile)
	sound, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	enginetest.GarblePage(t, path, enginetest.PageHolding(t, path, marker))
	if code, _, stderr := run(t, nil, "--dir", dir, "messages", "--thread", "t"); code != 1 {
		t.Fatalf("messages of the damaged thread: exit %d, want 1\n%s", code, stderr)
	}
	in := filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(in, []byte(`{"thread":"u","resource":"r","role":"user","content":"one more about the harbour"}`+"\n"), 0o600)
	code, _, stderr := run(t, nil, "--dir", dir, "ingest", in)
	if code != 1 || !strings.Contains(stderr, "earlier process") || !strings.Contains(stderr, "mnemo check --full") {
		t.Fatalf("ingest after another command met the damage: exit %d, want 1 naming the record and mnemo check --full\n%s", code, stderr)
	}
	os.Remove(path + "-wal")
	os.Remove(path + "-shm")
	if err := os.WriteFile(path, sound, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := run(t, nil, "--dir", dir, "check", "--full"); code != 0 {
		t.Fatalf("check --full of the restored file: exit %d\n%s%s", code, out, stderr)
	}
	if _, err := os.Stat(path + ".damage-seen"); !os.IsNotExist(err) {
		t.Errorf("the record after check --full passed: %v, want it removed", err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", in); code != 0 {
		t.Errorf("ingest after check --full: exit %d\n%s", code, stderr)
	}
}
