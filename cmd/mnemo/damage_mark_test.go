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
// mnemo ingest into the sound thread u is refused, saying how to clear it
// with the user's own commands (mnemo --dir D check --full after the
// restore, mnemo --dir D salvage); once the file is restored, a quick
// check finds nothing but exits 1 saying the record remains, mnemo check --full says it
// removed it, and ingest stores again. Before, the next ingest stored
// into the damaged file; then its refusal named bare commands (mnemo
// salvage, mnemo check --full, which open ./mnemo-data), and the checks
// said nothing of the record.
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
	fullCheck := "mnemo --dir " + dir + " check --full"
	code, _, stderr := run(t, nil, "--dir", dir, "ingest", in)
	if code != 1 || !strings.Contains(stderr, "recorded in "+path+".damage-seen") || !strings.Contains(stderr, "Once mnemo.db is restored (or if it was restored already), run: "+fullCheck+"\n") ||
		!strings.Contains(stderr, "mnemo --dir "+dir+" salvage") || strings.Contains(stderr, "run mnemo ") {
		t.Fatalf("ingest after another command met the damage: exit %d, want 1 naming the record, %q and salvage with --dir, and no bare mnemo command\n%s", code, fullCheck, stderr)
	}
	os.Remove(path + "-wal")
	os.Remove(path + "-shm")
	if err := os.WriteFile(path, sound, 0o600); err != nil {
		t.Fatal(err)
	}
	// Restored: a quick check finds nothing, says the record remains and
	// exits 1 (writes are still refused).
	if code, out, stderr := run(t, nil, "--dir", dir, "check"); code != 1 || !strings.HasPrefix(out, "ok:") ||
		!strings.Contains(stderr, "mnemo check: note: the record of damage "+path+".damage-seen") || !strings.Contains(stderr, "remains") || !strings.Contains(stderr, "run: "+fullCheck+"\n") {
		t.Fatalf("quick check of the restored file: exit %d, want 1 with a note that the record remains and %q\n%s%s", code, fullCheck, out, stderr)
	}
	if code, out, stderr := run(t, nil, "--dir", dir, "check", "--full"); code != 0 || !strings.Contains(stderr, "was removed: the full check found mnemo.db sound") {
		t.Fatalf("check --full of the restored file: exit %d, want 0 saying it removed the record\n%s%s", code, out, stderr)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "check"); code != 0 || strings.Contains(stderr, "record") {
		t.Errorf("quick check after the record was removed: exit %d, want no word of a record\n%s", code, stderr)
	}
	if _, err := os.Stat(path + ".damage-seen"); !os.IsNotExist(err) {
		t.Errorf("the record after check --full passed: %v, want it removed", err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", in); code != 0 {
		t.Errorf("ingest after check --full: exit %d\n%s", code, stderr)
	}
}
