package recall_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/enginetest/synth"
	"github.com/mnemo-go/mnemo/recall"
)

// BenchmarkFirstUseSnapshot measures the first use of a resource of 100,000
// messages (issue 14): each iteration opens an Index over a snapshot
// directory, runs one hybrid search of the resource (topK 5, range 1, as
// `mnemo bench`), which loads its shard from the snapshot, and closes the
// Index (untimed, with the background check of the vector part). The
// corpus is `mnemo bench`'s (internal/enginetest/synth, hash-384 vectors)
// in a store in memory (snapStore: its thread marks cost nothing, where
// SQLite's query runs beside the decoding). The snapshot is written once,
// into $TMPDIR/mnemo-firstuse-v<format>-<messages>, and reused by later
// runs (delete the directory to rebuild it: ~1 minute).
//
// Besides ns/op (the first search's wall time) it reports, per first use:
// cpu-ms (the process's CPU until the search returns: the background
// check of the vector part, which starts once the search has ranked its
// hits, is partly in it), minflt and majflt (page faults, getrusage),
// and for each stage of the load and the search (recall/loadmarks.go) the
// wall time from the search's start to the stage's end, ms@stage (mean
// over the iterations; the stages marked "beside" run on other goroutines).
//
//	go test ./recall/ -run '^$' -bench FirstUseSnapshot -benchtime 50x
func BenchmarkFirstUseSnapshot(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a snapshot of 100,000 messages once (~1 minute)")
	}
	const n = 100_000
	st, queries := firstUseStore(b, n)
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("mnemo-firstuse-v%d-%d", recall.SnapshotVersionForTest, n))
	lex, err := recall.OpenLexical("")
	if err != nil {
		b.Fatal(err)
	}
	defer lex.Close()
	open := func() *recall.Index {
		ix, err := recall.NewIndex(recall.Config{Lexical: lex, Source: st, SnapshotDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		return ix
	}
	if _, err := os.Stat(dir); err != nil { // build it from the store, written at Close
		ix := open()
		firstUseSearch(b, ix, queries[0])
		ix.Close()
	}
	var mu sync.Mutex
	var t0 time.Time
	sums := map[string]time.Duration{}
	var order []string
	recall.SetLoadMarkHookForTest(func(stage string) {
		d := time.Since(t0)
		mu.Lock()
		if _, ok := sums[stage]; !ok {
			order = append(order, stage)
		}
		sums[stage] += d
		mu.Unlock()
	})
	defer recall.SetLoadMarkHookForTest(nil)
	var cpu time.Duration
	var minflt, majflt int64
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		ix := open()
		loads := recall.SnapshotLoadsForTest()
		before := rusage(b)
		mu.Lock()
		t0 = time.Now()
		mu.Unlock()
		b.StartTimer()
		firstUseSearch(b, ix, queries[i%len(queries)])
		b.StopTimer()
		after := rusage(b)
		cpu += time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
		minflt += after.Minflt - before.Minflt
		majflt += after.Majflt - before.Majflt
		if recall.SnapshotLoadsForTest() != loads+1 {
			b.Fatal("the shard was not loaded from its snapshot")
		}
		ix.Close()
		b.StartTimer()
	}
	b.StopTimer()
	per := float64(b.N)
	b.ReportMetric(float64(cpu.Microseconds())/1000/per, "cpu-ms")
	b.ReportMetric(float64(minflt)/per, "minflt")
	b.ReportMetric(float64(majflt)/per, "majflt")
	slices.SortStableFunc(order, func(a, c string) int { return int(sums[a] - sums[c]) })
	for _, stage := range order {
		b.ReportMetric(float64(sums[stage].Microseconds())/1000/per, "ms@"+unitName.Replace(stage))
	}
}

// unitName makes a stage's name a metric's unit (no spaces).
var unitName = strings.NewReplacer(" ", "-", ":", "", "(", "", ")", "", ",", "")

// firstUseSearch runs a hybrid search of q as `mnemo bench` does.
func firstUseSearch(b *testing.B, ix *recall.Index, q synth.Query) {
	_, err := ix.Search(context.Background(), recall.Query{Text: q.Text, ResourceID: q.ResourceID, ThreadID: q.ThreadID,
		Options: recall.Options{TopK: 5, MessageRange: recall.Range{Before: 1, After: 1}, Scope: recall.ScopeResource}})
	if err != nil {
		b.Fatal(err)
	}
}

// firstUseStore returns a store of `mnemo bench`'s synthetic corpus of n
// messages in one resource, every message embedded by hash-384, and 50
// queries of it.
func firstUseStore(b *testing.B, n int) (*snapStore, []synth.Query) {
	b.Helper()
	c, err := synth.New(synth.Config{Messages: n, Resources: 1})
	if err != nil {
		b.Fatal(err)
	}
	st := &snapStore{res: synth.ResourceID(0), threads: map[string][]recall.Doc{}, last: map[string]int64{}, vecs: map[string][]float32{}}
	for th := range c.All() {
		for _, m := range th.Messages {
			st.last[th.ID]++
			d := recall.Doc{ID: m.ID, ThreadID: th.ID, ResourceID: st.res, Seq: st.last[th.ID], Role: m.Role, Name: m.Name,
				Content: m.Content, CreatedAt: m.CreatedAt}
			st.threads[th.ID] = append(st.threads[th.ID], d)
			st.vecs[d.ID] = recall.HashVector(d.Text())
		}
	}
	var qs []synth.Query
	for i := range 50 {
		qs = append(qs, c.Query(i, 1))
	}
	return st, qs
}

// rusage returns the process's resource usage.
func rusage(b *testing.B) syscall.Rusage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru
}
