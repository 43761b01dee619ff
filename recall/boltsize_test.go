package recall_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// TestOpenRefusesShortBolt (walk53): a lexical index whose store/root.bolt
// was cut short (a copy, a full disk, damage) is refused as corrupt
// before bbolt maps it, naming the file, so the caller quarantines and
// rebuilds it. It was opened: scorch's persister then read a page past
// the file's end, a SIGSEGV that killed mnemo search in about one run of
// three (no recover catches a fault), and the other runs found the damage
// later, by a persister error.
func TestOpenRefusesShortBolt(t *testing.T) {
	for _, keep := range []int64{8192, 16384} {
		t.Run(fmt.Sprint("Keep", keep), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "lexical")
			lex, err := recall.OpenLexical(path)
			if err != nil {
				t.Fatal(err)
			}
			for b := range 3 {
				var docs []recall.Doc
				for i := range 1000 {
					docs = append(docs, recall.Doc{ID: fmt.Sprintf("b%d-m%d", b, i), ThreadID: "t", ResourceID: "r", Seq: int64(b*1000 + i + 1), Role: "user",
						Content: fmt.Sprintf("train ticket porto note %d", i)})
				}
				if err := lex.Index(docs); err != nil {
					t.Fatal(err)
				}
			}
			if err := lex.Close(); err != nil {
				t.Fatal(err)
			}
			bolt := filepath.Join(path, "store", "root.bolt")
			fi, err := os.Stat(bolt)
			if err != nil || fi.Size() <= keep {
				t.Fatalf("root.bolt: %v, %v; want more than %d bytes", fi, err, keep)
			}
			if err := os.Truncate(bolt, keep); err != nil {
				t.Fatal(err)
			}
			_, err = recall.OpenLexical(path)
			if !errors.Is(err, recall.ErrCorrupt) || !strings.Contains(err.Error(), "root.bolt: shorter than its meta page says") {
				t.Fatalf("open with root.bolt cut to %d of %d bytes: %v, want ErrCorrupt naming root.bolt", keep, fi.Size(), err)
			}
		})
	}
}
