package importer_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/importer"
)

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestJSONLEdgeCases(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	long := `{"thread":"t","resource":"r","role":"user","content":"` + strings.Repeat("x", importer.MaxLineBytes) + `"}`
	body := "\ufeff" + `{"thread":"t","resource":"r","role":"user","content":"ok"}
{"thread":"t","resource":"r","role":"user","content":"ok"}
` + long + `
{"thread":"t","resource":"r","role":"assistant","content":"numbers","created_at":1700000000000}
`
	p := writeFile(t, "edge.jsonl", body)
	rep, err := importer.Import(ctx, e, p, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The BOM line is read, two equal lines stay two messages, the long line
	// is skipped and reported, and a numeric created_at is Unix milliseconds.
	if rep.Messages != 3 || rep.Skipped != 1 || rep.Problems[0].Where != "line 3" {
		t.Fatalf("report %+v %v", rep, rep.Problems)
	}
	ms, _ := e.Messages(ctx, "t", 1, 0)
	if ms[2].CreatedAt.UnixMilli() != 1700000000000 || ms[0].ID == ms[1].ID {
		t.Fatalf("messages %+v", ms)
	}
	rep, err = importer.Import(ctx, e, p, importer.Options{})
	if err != nil || rep.Messages != 0 || rep.Duplicates != 3 {
		t.Fatalf("re-import of lines without ids: %+v, %v", rep, err)
	}
}

func TestNothingImported(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	p := writeFile(t, "locomo.json", locomoSample)
	_, err := importer.Import(ctx, e, p, importer.Options{Format: importer.FormatLongMemEval})
	if !errors.Is(err, importer.ErrNothingImported) {
		t.Fatalf("err = %v, want ErrNothingImported", err)
	}
	if _, err := importer.Import(ctx, e, t.TempDir(), importer.Options{}); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("directory: %v", err)
	}
}
