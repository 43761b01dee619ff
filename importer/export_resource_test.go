package importer_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/working"
)

// TestExportResourceNotFound: an ExportOptions.Resource with no thread and
// no working-memory state is ErrResourceNotFound with nothing written; a
// resource with only a state, or only a thread, is exported. Before
// (walk38 #2), a mistyped resource wrote nothing and returned no error:
// `mnemo export --resource nope F` exited 0 with an empty F.
func TestExportResourceNotFound(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	exportCorpus(t, e)
	setState(t, e, working.ResourceKey("solo"), working.ModeTemplate, "# Solo")
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "carl:x", ResourceID: "carl", Messages: []engine.Message{{Role: "user", Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DeleteThread(ctx, "carl:x"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		resource        string
		threads, states int
		wantNotFound    bool
	}{
		{"nope", 0, 0, true},
		{"carl", 0, 0, true}, // its only thread erased
		{"solo", 0, 1, false},
		{"bob", 1, 0, false},
		{"ana", 2, 2, false},
	} {
		var buf bytes.Buffer
		rep, err := importer.Export(ctx, e, &buf, importer.ExportOptions{Resource: tc.resource})
		if tc.wantNotFound {
			if !errors.Is(err, importer.ErrResourceNotFound) || buf.Len() != 0 {
				t.Errorf("resource %q: %v, %d bytes written; want ErrResourceNotFound, nothing written", tc.resource, err, buf.Len())
			}
			continue
		}
		if err != nil || rep.Threads != tc.threads || rep.WorkingMemory != tc.states {
			t.Errorf("resource %q: %+v, %v; want %d threads, %d states", tc.resource, rep, err, tc.threads, tc.states)
		}
	}
}
