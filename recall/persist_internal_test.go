package recall

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestLexicalCreatedDurable: an index created and closed at once opens
// again with its mapping. With scorch's unsafe_batch (persist.go) bleve's
// own batch of the mapping returned before it was written, and the reopen
// failed "error parsing mapping JSON" (ErrCorrupt) in some runs.
func TestLexicalCreatedDurable(t *testing.T) {
	dir := t.TempDir()
	for i := range 30 {
		path := filepath.Join(dir, fmt.Sprint(i))
		l, err := OpenLexical(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if l, err = OpenLexical(path); err != nil {
			t.Fatalf("reopen %d of an index closed once created: %v", i, err)
		}
		l.Close()
	}
}
