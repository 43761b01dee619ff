package recall_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

// TestEraseRewritesSnapshot: an erasure in a resource whose shard is not
// loaded rewrites its snapshot without the erased messages instead of
// deleting it, so the next load reads the snapshot (no build from the
// Source) and equals a fresh build, and no snapshot file holds an erased
// text — for one message and for a whole thread. Before, Remove deleted
// the file and the next save or first use rebuilt the whole shard from the
// Source (BENCHMARKS.md, "Erasing a thread of a large resource").
func TestEraseRewritesSnapshot(t *testing.T) {
	for _, tc := range []struct {
		name   string
		thread bool
	}{{"message", false}, {"thread", true}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st, _ := newSnapStore(t, 1500, 11)
			dir := t.TempDir()
			w := snapIndex(t, st, dir)
			if err := w.SaveSnapshotForTest(ctx, st.res); err != nil {
				t.Fatal(err)
			}
			gone := eraseUnique(t, st, tc.thread)
			if !bytes.Contains(snapBytes(t, dir), []byte(gone[0].Content)) {
				t.Fatal("the snapshot does not hold the text to erase: the test checks nothing")
			}
			ids := make([]string, len(gone))
			for i, d := range gone {
				ids[i] = d.ID
			}
			got := snapIndex(t, st, dir) // shard not loaded
			if err := got.Remove(ctx, ids, st.res); err != nil {
				t.Fatal(err)
			}
			b := snapBytes(t, dir)
			for _, d := range gone {
				if bytes.Contains(b, []byte(d.Content)) {
					t.Fatalf("the snapshot still holds erased %s", d.ID)
				}
			}
			loads := recall.SnapshotLoadsForTest()
			again := snapIndex(t, st, dir)
			x, err := again.ShardDumpForTest(ctx, st.res)
			if err != nil {
				t.Fatal(err)
			}
			if recall.SnapshotLoadsForTest() == loads {
				t.Fatal("the shard was not loaded from the rewritten snapshot")
			}
			y, err := snapIndex(t, st, "").ShardDumpForTest(ctx, st.res)
			if err != nil {
				t.Fatal(err)
			}
			compareDumps(t, 0, x, y)
		})
	}
}

// eraseUnique removes from st a message whose text no other message has
// (with its whole thread when thread is set) and returns what it removed.
func eraseUnique(t *testing.T, st *snapStore, thread bool) []recall.Doc {
	t.Helper()
	docs := st.allDocs()
	count := map[string]int{}
	for _, d := range docs {
		count[d.Content]++
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, d := range docs {
		if count[d.Content] != 1 || len(d.Content) < 20 {
			continue
		}
		gone := []recall.Doc{d}
		if thread {
			gone = slices.Clone(st.threads[d.ThreadID])
			slices.SortFunc(gone, func(a, b recall.Doc) int { return boolInt(b.ID == d.ID) - boolInt(a.ID == d.ID) })
			delete(st.threads, d.ThreadID)
			delete(st.last, d.ThreadID)
		} else {
			st.threads[d.ThreadID] = slices.DeleteFunc(slices.Clone(st.threads[d.ThreadID]), func(x recall.Doc) bool { return x.ID == d.ID })
		}
		for _, g := range gone {
			delete(st.vecs, g.ID)
		}
		return gone
	}
	t.Fatal("no message with a unique text")
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// snapBytes returns the bytes of every file in the snapshot directory dir
// (exactly one .snap file expected).
func snapBytes(t *testing.T, dir string) []byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	snaps := 0
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Ext(n) == ".snap" {
			snaps++
		}
		out = append(out, b...)
	}
	if snaps != 1 {
		t.Fatalf("%d snapshot files in %s, want 1: %v", snaps, dir, names)
	}
	return out
}

// TestEraseRewriteTermOrder: a snapshot's terms do not keep the order in
// which an erased message brought them in. The erased message is the
// first to hold four made-up words, which a kept message holds in the
// reverse order; the snapshot written after the erasure must not spell
// them out in the erased order. Before, the terms were written in id
// order (the order of their first use), so the rewritten snapshot held
// "zorblaxquintorvexmarplindu", a fresh build did not.
func TestEraseRewriteTermOrder(t *testing.T) {
	ctx := context.Background()
	st, _ := newSnapStore(t, 1500, 11)
	words := []string{"zorblax", "quintor", "vexmar", "plindu"}
	rev := slices.Clone(words)
	slices.Reverse(rev)
	add := func(thread string, ws []string) recall.Doc {
		st.mu.Lock()
		defer st.mu.Unlock()
		st.last[thread]++
		d := recall.Doc{ID: thread + ".1", ThreadID: thread, ResourceID: st.res, Seq: 1, Role: "user",
			Content: strings.Join(ws, " "), CreatedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
		st.threads[thread] = append(st.threads[thread], d)
		st.vecs[d.ID] = recall.HashVector(d.Text())
		return d
	}
	gone := add("0000-erased", words)
	add("zzzz-kept", rev)
	run := []byte(strings.Join(words, ""))
	dir := t.TempDir()
	w := snapIndex(t, st, dir)
	if err := w.SaveSnapshotForTest(ctx, st.res); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(snapBytes(t, dir), []byte(gone.Content)) {
		t.Fatal("the snapshot does not hold the message to erase: the test checks nothing")
	}
	st.mu.Lock()
	delete(st.threads, gone.ThreadID)
	delete(st.last, gone.ThreadID)
	delete(st.vecs, gone.ID)
	st.mu.Unlock()
	ix := snapIndex(t, st, dir) // shard not loaded: the file is rewritten
	if err := ix.Remove(ctx, []string{gone.ID}, st.res); err != nil {
		t.Fatal(err)
	}
	b := snapBytes(t, dir)
	if bytes.Contains(b, []byte(gone.Content)) {
		t.Fatal("the snapshot still holds the erased text")
	}
	if bytes.Contains(b, run) {
		t.Fatalf("the snapshot spells out the erased message's words in its order (%s)", run)
	}
}
