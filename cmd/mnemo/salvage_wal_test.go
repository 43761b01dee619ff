package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// tornWALFixture returns a data directory whose mnemo.db is a crash image
// with a WAL beside it (copied while the engine had appends in it), the
// WAL's last frame torn (cut short) and a leaf page of messages in the
// main file garbled, and the bytes of mnemo.db and mnemo.db-wal as left.
func tornWALFixture(t *testing.T) (dir string, db, wal []byte) {
	t.Helper()
	ctx := context.Background()
	live := storedDir(t, engine.Config{}, false, inThreadT(harbourMessages()...))
	path := filepath.Join(live, engine.DatabaseFile)
	leaf := messageLeaf(t, path) // a page the appends below do not touch
	e, err := engine.Open(ctx, engine.Config{Dir: live, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for i := range 5 {
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "u", ResourceID: "r", Messages: []engine.Message{{Role: "user", Content: fmt.Sprintf("late message %d", i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	dir = t.TempDir()
	for _, f := range []string{engine.DatabaseFile, engine.DatabaseFile + "-wal"} {
		b, err := os.ReadFile(filepath.Join(live, f))
		if err != nil {
			t.Fatal(err)
		}
		if f != engine.DatabaseFile {
			if len(b) < 32+24+4096 {
				t.Fatalf("the crash image's WAL holds no frame (%d bytes)", len(b))
			}
			b = b[:len(b)-1000] // the last frame torn
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	garblePage(t, filepath.Join(dir, engine.DatabaseFile), leaf)
	db, _ = os.ReadFile(filepath.Join(dir, engine.DatabaseFile))
	wal, _ = os.ReadFile(filepath.Join(dir, engine.DatabaseFile+"-wal"))
	return dir, db, wal
}

// TestSalvageKeepsTornWAL: a damaged mnemo.db with a torn WAL beside it is
// reported by check, which leaves both files as found (opening SQLite read
// and write would fold the WAL into the damaged file and remove it on
// close), and salvage keeps them byte for byte as mnemo.db.damaged-<time>
// and its -wal.
func TestSalvageKeepsTornWAL(t *testing.T) {
	dir, db, wal := tornWALFixture(t)
	path := filepath.Join(dir, engine.DatabaseFile)
	same := func(step string) {
		t.Helper()
		gotDB, _ := os.ReadFile(path)
		gotWAL, err := os.ReadFile(path + "-wal")
		if !bytes.Equal(gotDB, db) || err != nil || !bytes.Equal(gotWAL, wal) {
			t.Fatalf("after %s: mnemo.db same %v, -wal same %v (%v)", step, bytes.Equal(gotDB, db), bytes.Equal(gotWAL, wal), err)
		}
	}
	for _, args := range [][]string{{"check"}, {"check", "--full"}} {
		code, out, stderr := run(t, nil, append([]string{"--dir", dir}, args...)...)
		if code != 1 || !strings.Contains(stderr, "salvage") {
			t.Fatalf("%s: exit %d\n%s%s", args, code, out, stderr)
		}
		same(strings.Join(args, " "))
	}
	code, out, stderr := run(t, nil, "--dir", dir, "salvage")
	if code != 0 {
		t.Fatalf("salvage: exit %d\n%s%s", code, out, stderr)
	}
	kept, _ := filepath.Glob(filepath.Join(dir, engine.DatabaseFile+".damaged-*"))
	var keptDB, keptWAL []byte
	for _, k := range kept {
		b, _ := os.ReadFile(k)
		switch {
		case strings.HasSuffix(k, "-wal"):
			keptWAL = b
		case !strings.HasSuffix(k, "-shm"):
			keptDB = b
		}
	}
	if !bytes.Equal(keptDB, db) || !bytes.Equal(keptWAL, wal) {
		t.Fatalf("kept %q: the database same %v, its -wal same %v", kept, bytes.Equal(keptDB, db), bytes.Equal(keptWAL, wal))
	}
}

// TestDamagedReadKeepsWAL: a command whose read meets the damaged page
// (messages, search) fails, and its close leaves mnemo.db and the torn
// -wal as found (the store remembers the damage: store.Damaged, CloseDB),
// so salvage still keeps both byte for byte. Before, the close folded the
// WAL into the damaged file and removed it.
func TestDamagedReadKeepsWAL(t *testing.T) {
	dir, db, wal := tornWALFixture(t)
	path := filepath.Join(dir, engine.DatabaseFile)
	for _, args := range [][]string{{"messages", "--thread", "t"}, {"search", "--resource", "r", "harbour"}} {
		code, out, stderr := run(t, nil, append([]string{"--dir", dir}, args...)...)
		if code != 1 || !strings.Contains(stderr, "malformed") {
			t.Fatalf("%s: exit %d\n%s%s", args, code, out, stderr)
		}
		gotDB, _ := os.ReadFile(path)
		gotWAL, err := os.ReadFile(path + "-wal")
		if !bytes.Equal(gotDB, db) || err != nil || !bytes.Equal(gotWAL, wal) {
			t.Fatalf("after %s: mnemo.db same %v, -wal same %v (%v)", args, bytes.Equal(gotDB, db), bytes.Equal(gotWAL, wal), err)
		}
	}
	if code, out, stderr := run(t, nil, "--dir", dir, "salvage"); code != 0 {
		t.Fatalf("salvage: exit %d\n%s%s", code, out, stderr)
	}
	kept, _ := filepath.Glob(filepath.Join(dir, engine.DatabaseFile+".damaged-*-wal"))
	if len(kept) != 1 {
		t.Fatalf("kept WAL %q, want one", kept)
	}
	if b, _ := os.ReadFile(kept[0]); !bytes.Equal(b, wal) {
		t.Fatalf("the kept -wal is not the one found (%d bytes, want %d)", len(b), len(wal))
	}
}
