package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestCheckRestoredBackup: `mnemo check` of a restored backup (no index
// directory) rebuilds the indexes before it verifies them, and now says so
// on one line after "ok:" (--json: rebuiltIndexes), exit 0 as before; it
// said nothing of the rebuild (2.7 s at 10k messages). A second check,
// with nothing to rebuild, says nothing of it (rebuiltIndexes []).
func TestCheckRestoredBackup(t *testing.T) {
	var reqs []engine.AppendRequest
	for i := range 12 {
		reqs = append(reqs, inThreadT(engine.Message{ID: fmt.Sprint("m", i), Role: "user", Content: fmt.Sprintf("the night train to porto, turn %d", i)}))
	}
	dir := storedDir(t, engine.Config{}, true, reqs...)
	backup := func(name string) string {
		t.Helper()
		dest := filepath.Join(t.TempDir(), name)
		if code, out, stderr := run(t, nil, "--dir", dir, "backup", dest); code != 0 {
			t.Fatalf("backup: exit %d %s %s", code, out, stderr)
		}
		return dest
	}
	text := backup("text")
	code, out, stderr := run(t, nil, "--dir", text, "check")
	if code != 0 || !strings.Contains(out, "ok: ") || !strings.Contains(stderr, "mnemo check: note: rebuilt the indexes from the database before the check: lexical index behind the store (0 of 12 messages)") ||
		strings.Contains(out, "rebuilt") {
		t.Fatalf("check of a restored backup: exit %d, stdout\n%s\nstderr %s\nwant exit 0 and the rebuild said", code, out, stderr)
	}
	if got := strings.Count(stderr, "rebuilt"); got != 1 {
		t.Errorf("the rebuild said %d times, want one line:\n%s", got, stderr)
	}
	if code, out, stderr := run(t, nil, "--dir", text, "check"); code != 0 || strings.Contains(out+stderr, "rebuilt") {
		t.Errorf("second check: exit %d, stdout\n%s\nstderr %s\nwant exit 0 and no rebuild", code, out, stderr)
	}
	asJSON := backup("json")
	for i, want := range []int{1, 0} {
		code, out, stderr := run(t, nil, "--dir", asJSON, "check", "--json")
		var rep struct {
			OK             bool      `json:"ok"`
			RebuiltIndexes *[]string `json:"rebuiltIndexes"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || !rep.OK || rep.RebuiltIndexes == nil || len(*rep.RebuiltIndexes) != want {
			t.Fatalf("check --json #%d: exit %d, stdout\n%s\nstderr %s\nwant exit 0, ok and %d rebuiltIndexes", i+1, code, out, stderr, want)
		}
		if want == 1 && !strings.Contains((*rep.RebuiltIndexes)[0], "0 of 12 messages") {
			t.Errorf("rebuiltIndexes %q, want the lexical index's 0 of 12 messages", *rep.RebuiltIndexes)
		}
	}
}
