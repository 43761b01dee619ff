package journal_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mnemo-go/mnemo/journal"
)

// TestSetReplaces records a setting twice: Recorded returns the latest,
// and a key never set is ErrNotFound.
func TestSetReplaces(t *testing.T) { forEachBackend(t, testSetReplaces) }

func testSetReplaces(t *testing.T, b backend) {
	ctx := context.Background()
	j, closeDB := b.openJournal(t, b.Place(t))
	defer closeDB()
	if _, err := j.Recorded(ctx, "meta", "embedder"); !errors.Is(err, journal.ErrNotFound) {
		t.Fatalf("Recorded before Set: %v; want ErrNotFound", err)
	}
	for _, v := range []string{"hash-384", "use-lite"} {
		if err := j.Set(ctx, "meta", "embedder", []byte(v)); err != nil {
			t.Fatal(err)
		}
		got, err := j.Recorded(ctx, "meta", "embedder")
		if err != nil || string(got) != v {
			t.Fatalf("Recorded = %q, %v; want %q", got, err, v)
		}
	}
}
