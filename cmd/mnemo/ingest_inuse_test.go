package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestIngestStdinInUseReadsNothing: `producer | mnemo ingest -` into a
// data directory another engine holds says "in use" without reading
// standard input: what the producer wrote is still in the pipe. Before,
// ingest copied all of standard input (up to --max-spool) and only then
// found the directory in use.
func TestIngestStdinInUseReadsNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, Holder: "holder-test"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	in := `{"thread":"t","resource":"r","role":"user","content":"hello"}` + "\n"
	if _, err := io.WriteString(w, in); err != nil {
		t.Fatal(err)
	}
	w.Close()

	var out, errOut bytes.Buffer
	m := &Main{Stdin: r, Stdout: &out, Stderr: &errOut, Getenv: func(k string) string {
		if k == "MNEMO_EMBEDDER" {
			return "hash-384"
		}
		return ""
	}}
	code := m.Run(ctx, []string{"--dir", dir, "ingest", "-"})
	if code != 1 || !strings.Contains(errOut.String(), "in use by process") || !strings.Contains(errOut.String(), "holder-test") {
		t.Fatalf("ingest - into a held directory: exit %d, stderr %q; want 1 and the holder named", code, errOut.String())
	}
	left, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if string(left) != in {
		t.Fatalf("standard input left in the pipe: %q, want all of it (%q): nothing read when refused", left, in)
	}
}
