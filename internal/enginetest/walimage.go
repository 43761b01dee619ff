package enginetest

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// CheckpointedWALImage appends n messages (ids m00, m01, … to thread "t"
// of resource "r", about 1.8 KB each) to a data directory, has a
// checkpoint copy every frame of the log into mnemo.db (the -shm's
// nBackfill == mxFrame, as a served directory's drainer leaves it), and
// copies mnemo.db, -wal and -shm into a new data directory while the
// engine is open, as kill -9 leaves them. It returns the new directory
// and the log's frame count (mxFrame, 12 or more).
func CheckpointedWALImage(t *testing.T, n int) (dir string, frames int) {
	t.Helper()
	ctx := context.Background()
	src := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: src, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	path := filepath.Join(src, engine.DatabaseFile)
	rw, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath())
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	rw.SetMaxOpenConns(1)
	// A reader pins the log while the messages are appended, so that no
	// checkpoint of the engine's restarts it; then one checkpoint copies
	// every frame.
	pin, err := rw.Begin()
	if err != nil {
		t.Fatal(err)
	}
	var before int
	if err := pin.QueryRow(`SELECT count(*) FROM messages`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		text := fmt.Sprintf("message %d: ", i) + strings.Repeat("lorem ipsum ", 150)
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{ID: fmt.Sprintf("m%02d", i), Role: engine.RoleUser, Content: text}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if err := pin.Rollback(); err != nil {
		t.Fatal(err)
	}
	// The engine's own checkpoint may hold the checkpoint lock (busy),
	// and its drainer's read of the outbox may hold a snapshot older than
	// the log's end, up to which a passive checkpoint then copies (busy
	// 0, done < logged: CI of 1840ff3, 129 of 323 frames): this one tries
	// again until it copied every frame.
	busy, logged, done := 1, 0, 0
	for try := 0; (busy != 0 || done != logged) && try < 1000; try++ {
		if try > 0 {
			time.Sleep(time.Millisecond)
		}
		if err := rw.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logged, &done); err != nil {
			t.Fatal(err)
		}
	}
	if busy != 0 || logged != done || logged < 12 {
		t.Fatalf("checkpoint: busy %d, %d of %d frames, want every frame of a log of 12 or more", busy, done, logged)
	}
	dst := t.TempDir()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, engine.DatabaseFile+suffix), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	shm, err := os.ReadFile(path + "-shm")
	if err != nil {
		t.Fatal(err)
	}
	if mx, nb := binary.LittleEndian.Uint32(shm[16:]), binary.LittleEndian.Uint32(shm[96:]); int(mx) != logged || mx != nb {
		t.Fatalf("the -shm says mxFrame %d, nBackfill %d, want both %d", mx, nb, logged)
	}
	return dst, logged
}

// WALDamages are the damages review22 made to a checkpointed log after
// its first commit (DamageCheckpointedWAL applies one): b is the log, k a
// frame (from 1) after its first commit, ps the page size in bytes.
var WALDamages = []struct {
	Name   string                           // the subtest's name
	Damage func(b []byte, k, ps int) []byte // returns the damaged log (b changed, or a new slice)
}{
	{"PageBit", func(b []byte, k, ps int) []byte { b[WALFrameOffset(k, ps)+24+2000] ^= 0x01; return b }},
	{"PageBytesMissing", func(b []byte, k, ps int) []byte {
		at := WALFrameOffset(k, ps) + 24 + 100
		return append(b[:at:at], b[at+100:]...)
	}},
	{"FrameZeroed", func(b []byte, k, ps int) []byte { clear(b[WALFrameOffset(k, ps):WALFrameOffset(k+1, ps)]); return b }},
	{"Inserted4KiB", func(b []byte, k, ps int) []byte {
		at := WALFrameOffset(k, ps)
		return append(append(b[:at:at], make([]byte, 4096)...), b[at:]...)
	}},
	{"HeaderBytesMissing", func(b []byte, k, ps int) []byte {
		at := WALFrameOffset(k, ps) + 4
		return append(b[:at:at], b[at+8:]...)
	}},
	{"Frame1HeaderZeroed", func(b []byte, _, ps int) []byte { clear(b[WALFrameOffset(1, ps) : WALFrameOffset(1, ps)+24]); return b }},
}

// WALFrameOffset is the offset of frame k (from 1) in a log of page size ps.
func WALFrameOffset(k, ps int) int { return 32 + (k-1)*(24+ps) }

// DamageCheckpointedWAL damages dir's log with damage at a frame after
// its first commit, in its last two thirds, whose page no later frame
// writes again (so that no exact repair undoes the damage).
func DamageCheckpointedWAL(t *testing.T, dir string, frames int, damage func(b []byte, k, ps int) []byte) {
	t.Helper()
	log := filepath.Join(dir, engine.DatabaseFile+"-wal")
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	ps := int(binary.BigEndian.Uint32(b[8:]))
	pgno := func(i int) uint32 { return binary.BigEndian.Uint32(b[WALFrameOffset(i, ps):]) }
	first := 1
	for ; binary.BigEndian.Uint32(b[WALFrameOffset(first, ps)+4:]) == 0; first++ {
	}
	for k := max(first+1, frames/3); k < frames-1; k++ {
		again := false
		for j := k + 1; j <= frames; j++ {
			again = again || pgno(j) == pgno(k)
		}
		if !again {
			if err := os.WriteFile(log, damage(b, k, ps), 0o600); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no frame after the first commit (frame %d of %d) whose page is not written again", first, frames)
}
