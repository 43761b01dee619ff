package recall_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/enginetest/synth"
	"github.com/mnemo-go/mnemo/recall"
)

// snapStore is a mutable store in memory with msgstore's semantics for
// recall.Source and recall.SnapshotSource: threads keep a message count and
// the last seq they gave (never reused), erasing messages keeps the thread,
// vectors are stored apart and may be missing or damaged (wrong length).
type snapStore struct {
	mu      sync.Mutex
	res     string
	threads map[string][]recall.Doc // by seq
	last    map[string]int64
	vecs    map[string][]float32
}

func (st *snapStore) sortedThreads() []string {
	ts := make([]string, 0, len(st.threads))
	for t := range st.threads {
		ts = append(ts, t)
	}
	slices.Sort(ts)
	return ts
}

func (st *snapStore) ResourceDocs(_ context.Context, r string, fn func(*recall.Doc) error) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if r != st.res {
		return nil
	}
	for _, t := range st.sortedThreads() {
		for i := range st.threads[t] {
			d := st.threads[t][i]
			if err := fn(&d); err != nil {
				return err
			}
		}
	}
	return nil
}

func (st *snapStore) ResourceVectors(_ context.Context, r, _ string, fn func(string, []float32) error) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if r != st.res {
		return nil
	}
	for _, t := range st.sortedThreads() {
		for _, d := range st.threads[t] {
			if v, ok := st.vecs[d.ID]; ok {
				if err := fn(d.ID, v); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (st *snapStore) ThreadMarks(_ context.Context, r string, fn func(recall.ThreadMark) error) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if r != st.res {
		return nil
	}
	for _, t := range st.sortedThreads() {
		if err := fn(recall.ThreadMark{ThreadID: t, Messages: int64(len(st.threads[t])), LastSeq: st.last[t]}); err != nil {
			return err
		}
	}
	return nil
}

func (st *snapStore) ThreadDocs(_ context.Context, r, thread string, after int64, fn func(*recall.Doc) error) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if r != st.res {
		return nil
	}
	for _, d := range st.threads[thread] {
		if d.Seq > after {
			if err := fn(&d); err != nil {
				return err
			}
		}
	}
	return nil
}

func (st *snapStore) MessageVectors(_ context.Context, _ string, ids []string, fn func(string, []float32) error) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, id := range ids {
		if v, ok := st.vecs[id]; ok {
			if err := fn(id, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// allDocs returns every stored message.
func (st *snapStore) allDocs() []recall.Doc {
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []recall.Doc
	for _, t := range st.sortedThreads() {
		out = append(out, st.threads[t]...)
	}
	return out
}

// newSnapStore fills a store with a synthetic resource of n messages; most
// have a vector, a few none, one a damaged one.
func newSnapStore(t *testing.T, n int, seed uint64) (*snapStore, *rand.Rand) {
	t.Helper()
	st := &snapStore{res: "res", threads: map[string][]recall.Doc{}, last: map[string]int64{}, vecs: map[string][]float32{}}
	r := rand.New(rand.NewPCG(seed, 77))
	st.add(t, r, n, seed, "")
	return st, r
}

// add appends n synthetic messages (corpus seed): to new threads when
// thread is "", else to that thread and others at random.
func (st *snapStore) add(t *testing.T, r *rand.Rand, n int, seed uint64, prefix string) {
	t.Helper()
	c, err := synth.New(synth.Config{Messages: n, Resources: 1, Seed: seed, ThreadMessages: 60})
	if err != nil {
		t.Fatal(err)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	existing := st.sortedThreads()
	for th := range c.All() {
		for _, m := range th.Messages {
			thread := prefix + th.ID
			if prefix != "" && len(existing) > 0 && r.IntN(2) == 0 {
				thread = existing[r.IntN(len(existing))]
			}
			st.last[thread]++
			d := recall.Doc{ID: prefix + m.ID, ThreadID: thread, ResourceID: st.res, Seq: st.last[thread], Role: m.Role, Name: m.Name,
				Content: m.Content, CreatedAt: m.CreatedAt}
			if r.IntN(3) == 0 {
				d.Metadata = map[string]any{"bucket": float64(r.IntN(5)), "tag": []any{"a", float64(r.IntN(3))}}
			}
			st.threads[thread] = append(st.threads[thread], d)
			switch k := r.IntN(50); {
			case k == 0: // not embedded yet
			case k == 1:
				st.vecs[d.ID] = make([]float32, 10) // damaged
			default:
				st.vecs[d.ID] = recall.HashVector(d.Text())
			}
		}
	}
}

// mutate changes the store as the engine may between two snapshots: new
// messages (in new and existing threads), erased messages, an erased
// thread, vectors stored late or repaired.
func (st *snapStore) mutate(t *testing.T, r *rand.Rand, round int) {
	t.Helper()
	st.add(t, r, 150+r.IntN(200), uint64(100+round), fmt.Sprintf("r%d-", round))
	st.mu.Lock()
	defer st.mu.Unlock()
	ts := st.sortedThreads()
	for range 1 + r.IntN(30) {
		th := ts[r.IntN(len(ts))]
		docs := st.threads[th]
		if len(docs) == 0 {
			continue
		}
		i := r.IntN(len(docs))
		delete(st.vecs, docs[i].ID)
		st.threads[th] = slices.Delete(docs, i, i+1)
	}
	if round%2 == 1 {
		gone := ts[r.IntN(len(ts))]
		for _, d := range st.threads[gone] {
			delete(st.vecs, d.ID)
		}
		delete(st.threads, gone)
		delete(st.last, gone)
	}
	for _, docs := range st.threads {
		for _, d := range docs {
			if v, ok := st.vecs[d.ID]; (!ok || len(v) == 10) && r.IntN(2) == 0 {
				st.vecs[d.ID] = recall.HashVector(d.Text())
			}
		}
	}
}

// snapIndex opens an Index over st with a fresh lexical index of st's
// messages; snapDir "" means no snapshots.
func snapIndex(t *testing.T, st *snapStore, snapDir string) *recall.Index {
	t.Helper()
	return snapIndexWith(t, st, snapDir, nil)
}

// snapIndexWith is snapIndex with the configuration changed by edit (nil:
// none).
func snapIndexWith(t *testing.T, st *snapStore, snapDir string, edit func(*recall.Config)) *recall.Index {
	t.Helper()
	lex, err := recall.OpenLexical("")
	if err != nil {
		t.Fatal(err)
	}
	if err := lex.Index(st.allDocs()); err != nil {
		t.Fatal(err)
	}
	// RescoreDepth above the corpus: every lexical match is scored exactly
	// in memory. Through bleve's top pool, two builds from the same
	// messages may keep different candidates among equal scores (seen
	// with two fresh builds), which would hide what this test compares.
	cfg := recall.Config{Lexical: lex, Source: st, SnapshotDir: snapDir,
		Tuning: recall.Tuning{SnapshotMin: 1, RescoreDepth: 100_000}}
	if edit != nil {
		edit(&cfg)
	}
	ix, err := recall.NewIndex(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// snapQueries returns searches of every mode over st: filters, thread
// scope and exclusions.
func snapQueries(st *snapStore, r *rand.Rand, n int) []recall.Query {
	docs := st.allDocs()
	var out []recall.Query
	for i := range n {
		d := docs[r.IntN(len(docs))]
		text := d.Content
		if len(text) > 50 {
			text = text[:50]
		}
		o := recall.Options{Mode: []recall.Mode{recall.ModeLexical, recall.ModeVector, recall.ModeHybrid}[i%3], TopK: 10,
			MessageRange: recall.Range{Before: 1, After: 1}}
		q := recall.Query{Text: text, ResourceID: st.res, ThreadID: d.ThreadID}
		switch i % 4 {
		case 1:
			o.Filter, _ = json.Marshal(map[string]any{"role": "user"})
		case 2:
			o.Filter, _ = json.Marshal(map[string]any{"metadata.bucket": map[string]any{"$in": []float64{1, 2}}})
		case 3:
			o.Scope = recall.ScopeThread
			q.Exclude = map[string]bool{docs[r.IntN(len(docs))].ID: true}
		}
		q.Options = o
		out = append(out, q)
	}
	return out
}

// TestSnapshotEqualsBuild is the property test of shard snapshots: over
// random corpora changed between snapshots as the engine changes its store
// (messages added to old and new threads, messages and a thread erased,
// vectors stored late, damaged ones repaired), a shard loaded from its
// snapshot and brought up to date equals the shard built from the Source
// (messages, term ids, statistics, vectors and their codes, damaged
// messages), and every search (lexical, vector, hybrid; filters, thread
// scope, exclusions) returns the same result.
func TestSnapshotEqualsBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds corpora of 2,600 messages")
	}
	ctx := context.Background()
	for _, seed := range []uint64{1, 2} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			st, r := newSnapStore(t, 2600, seed)
			dir := t.TempDir()
			w := snapIndex(t, st, dir)
			if err := w.SaveSnapshotForTest(ctx, st.res); err != nil { // from a temporary shard
				t.Fatal(err)
			}
			for round := range 4 {
				st.mutate(t, r, round)
				before := recall.SnapshotLoadsForTest()
				got, fresh := snapIndex(t, st, dir), snapIndex(t, st, "")
				a, err := got.ShardDumpForTest(ctx, st.res)
				if err != nil {
					t.Fatal(err)
				}
				if recall.SnapshotLoadsForTest() != before+1 {
					t.Fatalf("round %d: the shard was not loaded from its snapshot", round)
				}
				b, err := fresh.ShardDumpForTest(ctx, st.res)
				if err != nil {
					t.Fatal(err)
				}
				compareDumps(t, round, a, b)
				for i, q := range snapQueries(st, r, 60) {
					x, err := got.Search(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					y, err := fresh.Search(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(x, y) {
						t.Fatalf("round %d query %d (%s %q): snapshot %s\nbuild    %s", round, i, q.Options.Mode, q.Text, hitList(x), hitList(y))
					}
				}
				// The next round's snapshot: from the loaded shard.
				if err := got.SaveSnapshotForTest(ctx, st.res); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func compareDumps(t *testing.T, round int, a, b recall.ShardDump) {
	t.Helper()
	if len(a.Docs) != len(b.Docs) {
		t.Fatalf("round %d: %d messages, build %d", round, len(a.Docs), len(b.Docs))
	}
	for id, d := range b.Docs {
		if !reflect.DeepEqual(a.Docs[id], d) {
			t.Fatalf("round %d: message %s differs:\nsnapshot %+v\nbuild    %+v", round, id, a.Docs[id], d)
		}
	}
	if !slices.Equal(a.TypeDF, b.TypeDF) {
		t.Fatalf("round %d: answer-type counts %v, build %v", round, a.TypeDF, b.TypeDF)
	}
	if len(a.Topics) != len(b.Topics) {
		t.Fatalf("round %d: %d thread topics, build %d", round, len(a.Topics), len(b.Topics))
	}
	for th, x := range b.Topics {
		y := a.Topics[th]
		if y.N != x.N || len(y.Sum) != len(x.Sum) {
			t.Fatalf("round %d: topic of %s: %d vectors, build %d", round, th, y.N, x.N)
		}
		for i := range x.Sum {
			// Sums kept through additions and removals differ from a
			// fresh sum by rounding only.
			if math.Abs(x.Sum[i]-y.Sum[i]) > 1e-9 {
				t.Fatalf("round %d: topic of %s differs at %d: %g, build %g", round, th, i, y.Sum[i], x.Sum[i])
			}
		}
	}
	for _, f := range []struct {
		name string
		x, y any
	}{{"threads", a.Threads, b.Threads}, {"df", a.DF, b.DF}, {"n", a.N, b.N}, {"total length", a.TotalLen, b.TotalLen}, {"damaged", a.Damaged, b.Damaged}} {
		if !reflect.DeepEqual(f.x, f.y) {
			t.Fatalf("round %d: %s differ: snapshot %v, build %v", round, f.name, f.x, f.y)
		}
	}
}

// TestSnapshotDamaged: a snapshot file whose messages part or footer is
// damaged (a flipped byte, a truncation), of another format version (one
// of format 8, written before this one, among them) or of another
// resource is never used: the shard is built from the Source,
// with the same content, and the file is replaced by a good one. One whose
// vector part is damaged serves until its background check fails, then
// its file is deleted and the shard built from the Source.
func TestSnapshotDamaged(t *testing.T) {
	ctx := context.Background()
	st, _ := newSnapStore(t, 300, 5)
	other, _ := newSnapStore(t, 200, 6)
	other.res = "other"
	for _, name := range []string{"flipped byte in messages", "flipped byte in vectors", "flipped byte in footer", "truncated",
		"version", "format 8", "format 9", "other resource", "empty", "flipped byte in contents", "flipped byte in term ids"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			w := snapIndex(t, st, dir)
			if err := w.SaveSnapshotForTest(ctx, st.res); err != nil {
				t.Fatal(err)
			}
			file := damageSnapshot(t, dir, name, other)
			damaged, _ := os.ReadFile(file)
			before, drops := recall.SnapshotLoadsForTest(), recall.SnapshotDropsForTest()
			_, rejected := recall.SnapshotChecksForTest()
			got, fresh := snapIndex(t, st, dir), snapIndex(t, st, "")
			x, err := got.ShardDumpForTest(ctx, st.res)
			if err != nil {
				t.Fatal(err)
			}
			if name == "flipped byte in vectors" {
				if recall.SnapshotLoadsForTest() != before+1 {
					t.Fatal("the snapshot with a damaged vector part was not used")
				}
				got.WaitVerifiedForTest()
				if _, r := recall.SnapshotChecksForTest(); r != rejected+1 {
					t.Fatal("the damaged vector part was not rejected")
				}
				if _, err := os.Stat(file); !os.IsNotExist(err) {
					t.Fatalf("the damaged snapshot is still there (%v)", err)
				}
				before++
				if x, err = got.ShardDumpForTest(ctx, st.res); err != nil { // built from the Source
					t.Fatal(err)
				}
			}
			if name == "flipped byte in contents" || name == "flipped byte in term ids" {
				// Under a good sum of the part: used, and dropped at the
				// first use of the block (the dump verifies them all).
				if recall.SnapshotLoadsForTest() != before+1 {
					t.Fatal("the snapshot with a damaged block was not used")
				}
				if recall.SnapshotDropsForTest() != drops+1 {
					t.Fatal("the damaged block did not drop the shard")
				}
				// Deleted; the build's may be written again meanwhile.
				if b, err := os.ReadFile(file); err == nil && bytes.Equal(b, damaged) {
					t.Fatal("the damaged snapshot is still there")
				}
				before++
			}
			if recall.SnapshotLoadsForTest() != before {
				t.Fatal("a bad snapshot was used")
			}
			y, err := fresh.ShardDumpForTest(ctx, st.res)
			if err != nil {
				t.Fatal(err)
			}
			compareDumps(t, 0, x, y)
			if err := got.Close(); err != nil { // writes the snapshot again
				t.Fatal(err)
			}
			again := snapIndex(t, st, dir)
			if _, err := again.ShardDumpForTest(ctx, st.res); err != nil {
				t.Fatal(err)
			}
			if recall.SnapshotLoadsForTest() != before+1 {
				t.Fatal("the snapshot was not written again after the build")
			}
		})
	}
}

// damageSnapshot damages the one snapshot file of dir as name says and
// returns its path.
func damageSnapshot(t *testing.T, dir, name string, other *snapStore) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.snap"))
	if len(files) != 1 {
		t.Fatalf("%d snapshot files, want 1", len(files))
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	vecOff, vecEnd, regs := recall.SnapshotRegionsForTest(b)
	switch name {
	case "flipped byte in messages": // in the part's sum: before the contents
		b[regs[0]/2] ^= 0x10
	case "flipped byte in contents": // in a block's sum (format 10)
		b[(regs[0]+regs[1])/2] ^= 0x10
	case "flipped byte in term ids":
		b[(regs[2]+regs[3])/2] ^= 0x10
	case "flipped byte in vectors":
		b[vecOff+(vecEnd-vecOff)/2] ^= 0x10
	case "flipped byte in footer":
		b[len(b)-20] ^= 0x10
	case "truncated":
		b = b[:len(b)-100]
	case "version", "format 8", "format 9": // with a good checksum
		// The version follows the 8-byte magic; format 8 is the format
		// before the per-ord arrays, 9 the one before the blocks' sums
		// (snapshot_blocks.go), both rebuilt on upgrade.
		b[8] = 99
		if name == "format 8" {
			b[8] = 8
		}
		if name == "format 9" {
			b[8] = 9
		}
		recall.FixMessagesSumForTest(b)
	case "other resource":
		od := t.TempDir()
		ow := snapIndex(t, other, od)
		if err := ow.SaveSnapshotForTest(context.Background(), other.res); err != nil {
			t.Fatal(err)
		}
		of, _ := filepath.Glob(filepath.Join(od, "*.snap"))
		if b, err = os.ReadFile(of[0]); err != nil {
			t.Fatal(err)
		}
	case "empty":
		b = nil
	}
	if err := os.WriteFile(files[0], b, 0o600); err != nil {
		t.Fatal(err)
	}
	return files[0]
}

// hitList prints a result's hits compactly.
func hitList(r *recall.Result) string {
	var b []byte
	for _, h := range r.Hits {
		b = fmt.Appendf(b, "%s/%s/%.17g ", h.MessageID, h.Reason, h.Score)
	}
	return string(b)
}

// TestEraseDetachesSnapshot: a shard served from its snapshot file maps
// it; erasing one of its messages deletes the file and the shard stops
// mapping it (a deleted file stays on disk, erased bytes included, while
// a mapping refers to it), and it still answers as a build does.
func TestEraseDetachesSnapshot(t *testing.T) {
	if _, err := os.Stat("/proc/self/maps"); err != nil {
		t.Skip("no /proc/self/maps")
	}
	ctx := context.Background()
	st, r := newSnapStore(t, 1500, 9)
	dir := t.TempDir()
	w := snapIndex(t, st, dir)
	if err := w.SaveSnapshotForTest(ctx, st.res); err != nil {
		t.Fatal(err)
	}
	got := snapIndex(t, st, dir)
	if _, err := got.ShardDumpForTest(ctx, st.res); err != nil {
		t.Fatal(err)
	}
	got.WaitVerifiedForTest()
	mapped := func() bool {
		b, err := os.ReadFile("/proc/self/maps")
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Contains(b, []byte(dir))
	}
	if !mapped() {
		t.Fatal("the shard does not map its snapshot file")
	}
	docs := st.allDocs()
	gone := docs[r.IntN(len(docs))]
	st.mu.Lock()
	th := st.threads[gone.ThreadID]
	st.threads[gone.ThreadID] = slices.DeleteFunc(slices.Clone(th), func(d recall.Doc) bool { return d.ID == gone.ID })
	delete(st.vecs, gone.ID)
	st.mu.Unlock()
	if err := got.Remove(ctx, []string{gone.ID}, st.res); err != nil {
		t.Fatal(err)
	}
	if mapped() {
		t.Fatal("the shard still maps its deleted snapshot file after an erasure")
	}
	fresh := snapIndex(t, st, "")
	x, err := got.ShardDumpForTest(ctx, st.res)
	if err != nil {
		t.Fatal(err)
	}
	y, err := fresh.ShardDumpForTest(ctx, st.res)
	if err != nil {
		t.Fatal(err)
	}
	compareDumps(t, 0, x, y)
	for i, q := range snapQueries(st, r, 30) {
		a, err := got.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		b, err := fresh.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("query %d: after the erasure %s\nbuild %s", i, hitList(a), hitList(b))
		}
	}
}

// TestSnapshotOfAnotherZone: a snapshot records the resource's time zone
// (Config.Location) its stored relative dates were resolved in; opened in
// another zone it is not used (the shard is built from the Source: the
// dump equals a fresh build in the new zone), and one written in that zone
// loads again. Without it, a snapshot written in UTC loaded in Los
// Angeles would keep its UTC days.
func TestSnapshotOfAnotherZone(t *testing.T) {
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Skipf("no tzdata: %v", err)
	}
	ctx := context.Background()
	st, _ := newSnapStore(t, 600, 5)
	// Turns said late in the evening there, with relative dates.
	st.mu.Lock()
	for _, th := range st.sortedThreads() {
		for i := range st.threads[th] {
			d := &st.threads[th][i]
			d.Content += " yesterday"
			d.CreatedAt = time.Date(2023, 5, 1+i%28, 23, 30, 0, 0, la).UTC()
		}
	}
	st.mu.Unlock()
	dir := t.TempDir()
	if err := snapIndex(t, st, dir).SaveSnapshotForTest(ctx, st.res); err != nil {
		t.Fatal(err)
	}
	inLA := func(c *recall.Config) { c.Location = func(string) *time.Location { return la } }
	before := recall.SnapshotLoadsForTest()
	got, err := snapIndexWith(t, st, dir, inLA).ShardDumpForTest(ctx, st.res)
	if err != nil {
		t.Fatal(err)
	}
	if recall.SnapshotLoadsForTest() != before {
		t.Fatal("a snapshot written in UTC was loaded in Los Angeles")
	}
	want, err := snapIndexWith(t, st, "", inLA).ShardDumpForTest(ctx, st.res)
	if err != nil {
		t.Fatal(err)
	}
	compareDumps(t, 0, got, want)
	utc, err := snapIndex(t, st, "").ShardDumpForTest(ctx, st.res)
	if err != nil {
		t.Fatal(err)
	}
	for id, d := range want.Docs {
		if d.Ref == utc.Docs[id].Ref {
			t.Fatalf("%s: the same relative date in Los Angeles as in UTC (%v)", id, d.Ref)
		}
	}
	w := snapIndexWith(t, st, dir, inLA)
	if err := w.SaveSnapshotForTest(ctx, st.res); err != nil {
		t.Fatal(err)
	}
	before = recall.SnapshotLoadsForTest()
	again, err := snapIndexWith(t, st, dir, inLA).ShardDumpForTest(ctx, st.res)
	if err != nil {
		t.Fatal(err)
	}
	if recall.SnapshotLoadsForTest() != before+1 {
		t.Fatal("a snapshot written in Los Angeles was not loaded there")
	}
	compareDumps(t, 1, again, want)
}

// TestSnapshotHitsOutliveShard: the message ids of a shard loaded from its
// snapshot lie in the file's mapping (readIDs); the hits of a search copy
// them, so that a result read after the shard is unloaded (its mapping
// gone) still holds its ids. Without the copy, reading them faulted.
func TestSnapshotHitsOutliveShard(t *testing.T) {
	ctx := context.Background()
	st, r := newSnapStore(t, 1500, 11)
	dir := t.TempDir()
	w := snapIndex(t, st, dir)
	if err := w.SaveSnapshotForTest(ctx, st.res); err != nil {
		t.Fatal(err)
	}
	got := snapIndex(t, st, dir)
	var results []*recall.Result
	for _, q := range snapQueries(st, r, 20) {
		q.Options.MessageRange = recall.Range{Before: 1, After: 1}
		res, err := got.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, res)
	}
	got.WaitVerifiedForTest()
	got.Forget() // unloads the shard: its mapping is released
	ids := map[string]bool{}
	for _, d := range st.allDocs() {
		ids[d.ID] = true
	}
	n := 0
	for _, res := range results {
		for _, h := range res.Hits {
			if !ids[strings.Clone(h.MessageID)] {
				t.Fatalf("hit %q is no message of the store", h.MessageID)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no hits")
	}
}

// forgetReranker unloads ix's shards (as another resource's load beyond
// Tuning.MaxLoaded, or Forget, may while a re-ranker's round trip is in
// flight), then reads every passage it was given, which must still be the
// text of a stored message.
type forgetReranker struct {
	ix    *recall.Index
	texts map[string]bool
	t     *testing.T
	n     int
}

func (r *forgetReranker) ID() string { return "test:forget" }

func (r *forgetReranker) Rerank(_ context.Context, _ string, passages []string) ([]float64, error) {
	r.ix.Forget() // unloads the shard: its arena and its mapping are released
	out := make([]float64, len(passages))
	for i, p := range passages {
		if !r.texts[strings.Clone(p)] {
			r.t.Errorf("passage %q is no message's text", p)
		}
		out[i] = float64(-i)
		r.n++
	}
	return out, nil
}

// TestRerankPassagesOutliveShard: the passages a re-ranker is given are
// read outside every lock, after the search returned (a timed-out one
// even after SearchReranked returned), so they must not point into the
// shard's memory, which an unload releases.
func TestRerankPassagesOutliveShard(t *testing.T) {
	ctx := context.Background()
	st, r := newSnapStore(t, 1500, 12)
	dir := t.TempDir()
	w := snapIndex(t, st, dir)
	if err := w.SaveSnapshotForTest(ctx, st.res); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Snapshot", "Source"} {
		t.Run(name, func(t *testing.T) {
			ix := snapIndex(t, st, dir)
			if name == "Source" {
				ix = snapIndex(t, st, "")
			}
			rr := &forgetReranker{ix: ix, texts: map[string]bool{}, t: t}
			for _, d := range st.allDocs() {
				rr.texts[d.Text()] = true
			}
			for _, q := range snapQueries(st, r, 10) {
				if _, err := ix.SearchReranked(ctx, q, recall.Rerank{Reranker: rr, Budget: time.Minute}); err != nil {
					t.Fatal(err)
				}
				ix.WaitVerifiedForTest()
			}
			if rr.n == 0 {
				t.Fatal("no passages")
			}
		})
	}
}

// TestCheckSnapshots: CheckSnapshots keeps a sound snapshot and deletes
// one with a byte flipped in either part (the vector part is otherwise
// verified only in the background, after the shard serves), or truncated.
func TestCheckSnapshots(t *testing.T) {
	ctx := context.Background()
	st, _ := newSnapStore(t, 300, 13)
	for _, tc := range []struct {
		name    string
		damage  func(b []byte) []byte
		deleted int
	}{
		{"OK", func(b []byte) []byte { return b }, 0},
		{"MessagesPart", func(b []byte) []byte { b[100] ^= 0x5a; return b }, 1},
		{"VectorPart", func(b []byte) []byte { b[len(b)-24-64] ^= 0x5a; return b }, 1},
		{"Truncated", func(b []byte) []byte { return b[:len(b)/2] }, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := snapIndex(t, st, dir).SaveSnapshotForTest(ctx, st.res); err != nil {
				t.Fatal(err)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*.snap"))
			if len(files) != 1 {
				t.Fatalf("snapshot files %q, want 1", files)
			}
			b, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(files[0], tc.damage(b), 0o600); err != nil {
				t.Fatal(err)
			}
			checked, deleted, err := snapIndex(t, st, dir).CheckSnapshots(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if checked != 1 || len(deleted) != tc.deleted {
				t.Fatalf("checked %d, deleted %q; want 1 checked, %d deleted", checked, deleted, tc.deleted)
			}
			_, err = os.Stat(files[0])
			if gone := err != nil; gone != (tc.deleted == 1) {
				t.Fatalf("file gone %v (%v), want %v", gone, err, tc.deleted == 1)
			}
		})
	}
}

// TestSnapshotOfOldToolCallText: a snapshot stores each message's content
// with its tool calls' text (recall.WithToolCalls), which now decodes the
// arguments' JSON; one written under the old text rules (the raw JSON,
// `{"city":"Z\u00fcrich"}`) is not loaded but refused as written for
// other rules, not as damaged, and the shard is built from the Source's
// new text. Without the rules' bump the old snapshot loads and keeps the
// old text.
func TestSnapshotOfOldToolCallText(t *testing.T) {
	ctx := context.Background()
	st, _ := newSnapStore(t, 300, 9)
	first := st.sortedThreads()[0]
	doc := func() *recall.Doc { return &st.threads[first][0] }
	calls := []byte(`[{"id":"c1","name":"weather","arguments":{"city":"Z\u00fcrich"}}]`)
	doc().Content = `weather {"city":"Z\u00fcrich"}` // what the old rules made of calls
	dir := t.TempDir()
	restore := recall.SetTextRulesForTest(1)
	err := snapIndex(t, st, dir).SaveSnapshotForTest(ctx, st.res)
	restore()
	if err != nil {
		t.Fatal(err)
	}
	doc().Content = recall.WithToolCalls("", calls)
	if doc().Content != "weather city Zürich" {
		t.Fatalf("the tool call's text is %q", doc().Content)
	}
	var told []string
	before := recall.SnapshotLoadsForTest()
	got, err := snapIndexWith(t, st, dir, func(c *recall.Config) {
		c.SnapshotDropped = func(_, detail string) { told = append(told, detail) }
	}).ShardDumpForTest(ctx, st.res)
	if err != nil {
		t.Fatal(err)
	}
	if recall.SnapshotLoadsForTest() != before {
		t.Fatal("a snapshot written under the old tool-call text rules was loaded")
	}
	if want := "it was written for another resource, embedder, analyser, answer rules or time zone"; len(told) != 1 || told[0] != want {
		t.Fatalf("drops told %q, want one %q", told, want)
	}
	want, err := snapIndex(t, st, "").ShardDumpForTest(ctx, st.res)
	if err != nil {
		t.Fatal(err)
	}
	compareDumps(t, 0, got, want)
}
