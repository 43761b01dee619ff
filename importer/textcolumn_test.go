package importer_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestJSONLInvalidTextColumn: a JSONL record that is not valid UTF-8, or
// escapes half a surrogate pair, names the 1-based column of the byte on
// its line, leading blanks counted, as a syntax error does ("invalid
// record at column 12"); it said a 0-based offset into the record ("at
// offset 55").
func TestJSONLInvalidTextColumn(t *testing.T) {
	const head = `{"thread":"t","resource":"r","role":"user","content":"`
	for _, c := range []struct {
		name, line, want string
	}{
		{"Byte", head + "caf\xe9\"}", fmt.Sprintf("invalid byte 0xe9 at column %d", len(head)+4)},
		{"ByteIndented", "   " + head + "caf\xe9\"}", fmt.Sprintf("invalid byte 0xe9 at column %d", 3+len(head)+4)},
		{"Surrogate", head + `half \ud800 pair"}`, fmt.Sprintf(`\ud800 at column %d is half of a UTF-16 surrogate pair`, len(head)+6)},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := enginetest.MustOpen(t, engine.Config{})
			rep, _ := importer.Import(context.Background(), e, writeFile(t, "text.jsonl", c.line+"\n"), importer.Options{})
			if rep == nil || len(rep.Problems) != 1 {
				t.Fatalf("report %+v, want one problem", rep)
			}
			if got := rep.Problems[0].Reason(); !strings.HasSuffix(got, c.want) {
				t.Errorf("reason %q, want it to end %q", got, c.want)
			}
		})
	}
}
