package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/mcpserver"
)

// TestDeleteWarnsOfKeptDamaged: over streamable HTTP on loopback,
// memory_delete's result carries a warning, in its structured result and
// its text, while a damaged database file kept by a salvage
// (mnemo.db.damaged-<time>) lies in the data directory: no erasure reaches
// it. Without one there is no warning.
func TestDeleteWarnsOfKeptDamaged(t *testing.T) {
	e := enginetest.MustOpen(t, engine.Config{})
	bs := serveHTTP(t, e)("bob-secret-22")
	for _, th := range []string{"t1", "t2"} {
		if failed, text := call(t, bs, "memory_append", map[string]any{"threadId": th, "messages": []map[string]any{{"role": "user", "content": "forget me"}}}, nil); failed {
			t.Fatal(text)
		}
	}
	var del mcpserver.DeleteOutput
	if failed, text := call(t, bs, "memory_delete", map[string]any{"threadId": "t1"}, &del); failed || del.Warning != "" || strings.Contains(text, "warning") {
		t.Fatalf("no kept file: failed=%v %q %+v", failed, text, del)
	}
	db, err := os.ReadFile(filepath.Join(e.Dir(), engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	kept := engine.DatabaseFile + ".damaged-20261203T010000Z"
	if err := os.WriteFile(filepath.Join(e.Dir(), kept), db, 0o600); err != nil {
		t.Fatal(err)
	}
	del = mcpserver.DeleteOutput{}
	failed, text := call(t, bs, "memory_delete", map[string]any{"threadId": "t2"}, &del)
	if failed || len(del.Messages) != 1 || !strings.Contains(del.Warning, kept) || !strings.Contains(del.Warning, "may still hold what was erased") || !strings.Contains(text, "may still hold what was erased") {
		t.Fatalf("with a kept file: failed=%v %q %+v", failed, text, del)
	}
}
