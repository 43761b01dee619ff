package importer_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestJSONLSyntaxErrorDeepKeyPath: the key path of a syntax error deep in
// nested objects is cut short, in the reason and in what finding it
// costs. Before, each level held its whole path: a line 3,000 objects
// deep with 100-byte keys (303 KB) allocated about 450 MB to say a
// 303 KB path, and a 1.26 MB line 12,000 deep ran ingest out of memory.
func TestJSONLSyntaxErrorDeepKeyPath(t *testing.T) {
	ctx := context.Background()
	key := `"` + strings.Repeat("k", 100) + `":`
	const depth = 3000
	line := `{"thread":"t","resource":"r","role":"user","content":"x","metadata":` + strings.Repeat("{"+key, depth) + "}" + strings.Repeat("}", depth) + "}"
	p := writeFile(t, "f.jsonl", line+"\n")
	e := enginetest.MustOpen(t, engine.Config{})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := importer.Import(ctx, e, p, importer.Options{Strict: true, Name: "f.jsonl"})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), `(after "metadata.kkk`) || !strings.Contains(err.Error(), "…") || len(err.Error()) > 1024 {
		t.Errorf("got %.400s… (%d bytes), want the key path cut short, under 1 KiB", err, len(err.Error()))
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("the import allocated %d MB, want at most 64", got>>20)
	}
}
