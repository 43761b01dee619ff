package engine

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// TestIndexNoRoomAfterRoomAgain: the drain's batch was refused for lack
// of room, but scorch's retry wrote the index (Refused nil again,
// DiskFull with it) while the drain was still deferring the batch's rows. The
// drain's error still says the batch was refused, and DiskFull stays
// clear: kept then, no later write of the index would clear it (rev53:
// /healthz said "disk full" for good on an index that writes).
func TestIndexNoRoomAfterRoomAgain(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, Config{Dir: t.TempDir(), Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if at, refused := e.space.lex.Load().Refused(); refused != nil {
		t.Fatalf("a fresh index is refused since %s: %v", at, refused)
	}
	batchErr := fmt.Errorf("recall: index batch of 1: not persisted: %w", syscall.ENOSPC)
	if err := e.indexNoRoom(batchErr); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("indexNoRoom = %v, want ErrNoSpace", err)
	}
	if err := e.DiskFull(); err != nil {
		t.Fatalf("DiskFull after the index wrote again = %v, want nil", err)
	}
}
