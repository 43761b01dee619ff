package importer_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// cutAppender is a real engine whose appends fail from the cut-th on, as
// a Postgres connection terminated mid-ingest does (walk35: "index 100
// lexical docs: FATAL: terminating connection … (SQLSTATE 57P01)").
type cutAppender struct {
	e       *engine.Engine
	n, cut  int
	failure error
}

func (a *cutAppender) Append(ctx context.Context, req engine.AppendRequest) (*engine.AppendResult, error) {
	a.n++
	if a.n >= a.cut {
		return nil, a.failure
	}
	return a.e.Append(ctx, req)
}

// TestImportStoppedByEngine: an import the engine stops part-way, for a
// reason not of a record, reports it (Error, Stopped, StoppedThread,
// NotStored) beside what was stored, and importing the same file again,
// ids derived (the lines have none), stores only the rest. Before, the
// report said nothing of where it stopped: Stopped was set only by
// --strict.
func TestImportStoppedByEngine(t *testing.T) {
	ctx := context.Background()
	var b strings.Builder
	for th := range 3 {
		for i := range 4 {
			fmt.Fprintf(&b, `{"thread":"t%d","resource":"r","role":"user","content":"message %d of t%d"}`+"\n", th, i, th)
		}
	}
	file := filepath.Join(t.TempDir(), "c.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	e := enginetest.MustOpen(t, engine.Config{})
	cut := errors.New("index 100 lexical docs: FATAL: terminating connection due to administrator command (SQLSTATE 57P01)")
	rep, err := importer.Import(ctx, &cutAppender{e: e, cut: 2, failure: cut}, file, importer.Options{})
	if !errors.Is(err, cut) {
		t.Fatalf("error %v, want the engine's", err)
	}
	if rep.Messages != 4 || rep.Stopped != "line 5" || rep.StoppedThread != "t1" || rep.NotStored != 4 || rep.Error != cut.Error() {
		t.Fatalf("report %+v; want 4 messages, stopped at line 5 of thread t1, 4 not stored, the error", rep)
	}
	rep, err = importer.Import(ctx, e, file, importer.Options{})
	if err != nil || rep.Messages != 8 || rep.Duplicates != 4 || rep.Error != "" || rep.Stopped != "" {
		t.Fatalf("rerun: report %+v, error %v; want 8 stored, 4 already stored", rep, err)
	}
}
