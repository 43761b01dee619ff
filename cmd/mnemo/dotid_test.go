package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/legacyid"
	"github.com/mnemo-go/mnemo/recall"
)

// TestDotIDsStoredStayReachable: a data directory written before ids "."
// and ".." were refused for new data (here by an engine with
// legacyid.Allow) is read and erased by those ids through the commands:
// check notes them (--json: dotIds; it printed no note before), threads, messages, memctx, delete --message, delete
// --thread read and erase them; wm set
// refuses to write under them, naming the flag and the rule.
func TestDotIDsStoredStayReachable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	legacyid.Allow(e)
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "..", ResourceID: ".", Messages: []engine.Message{
		{ID: ".", Role: "user", Content: "dot"}, {Role: "assistant", Content: "dot dot"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: ".", ThreadID: ".."}); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "check", "--json")
	var rep struct{ DotIDs []struct{ Kind, ID string } }
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
		t.Fatalf("check --json: exit %d, %v:\n%s%s", code, err, out, stderr)
	}
	if got, want := fmt.Sprint(rep.DotIDs), "[{thread ..} {resource .} {message .} {run .}]"; got != want {
		t.Errorf("check --json: dotIds %s, want %s", got, want)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check"}, `mnemo check: note: thread "..", resource ".", message ".", run "." stored before`},
		{[]string{"threads", "--resource", "."}, ".."},
		{[]string{"messages", "--thread", ".."}, "dot dot"},
		{[]string{"memctx", "."}, "run . · thread .. · resource ."},
		{[]string{"delete", "--yes", "--message", "."}, "erased 1 message (.)"},
		{[]string{"messages", "--thread", ".."}, "dot dot"},
		{[]string{"delete", "--yes", "--thread", ".."}, "deleted 1 thread (..)"},
	} {
		code, out, stderr := run(t, nil, append([]string{"--dir", dir}, c.args...)...)
		if code != 0 || !strings.Contains(out+stderr, c.want) {
			t.Fatalf("mnemo %s: exit %d, want 0 and %q:\n%s%s", strings.Join(c.args, " "), code, c.want, out, stderr)
		}
	}
	if code, out, stderr := run(t, nil, "--dir", dir, "messages", "--thread", ".."); code != 1 || !strings.Contains(stderr, `thread not found: ".."`) {
		t.Fatalf("messages --thread .. after delete: exit %d, want 1, thread not found:\n%s%s", code, out, stderr)
	}
	state := filepath.Join(t.TempDir(), "s.md")
	if err := os.WriteFile(state, []byte("# User\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--thread", "--resource"} {
		code, _, stderr := run(t, nil, "--dir", dir, "wm", "set", flag, ".", "--markdown", state)
		if code != 2 || !strings.Contains(stderr, flag+` ".": no working memory is written under "." or ".."`) {
			t.Errorf("wm set %s .: exit %d, want 2 and the rule: %s", flag, code, stderr)
		}
	}
}
