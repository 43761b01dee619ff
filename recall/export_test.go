package recall

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"time"
)

// MaxTopKForTest is a TopK large enough to rank every message of a test
// corpus.
const MaxTopKForTest = 1000

// Dots8 and Dots8Go expose the int8 kernel and its pure-Go reference.
var (
	Dots8   = dots8
	Dots8Go = dots8Go
)

// VectorIndexForTest builds the vector channel's int8 index over vecs (ids
// by position) and returns its search: the top n ids, best first.
func VectorIndexForTest(vecs [][]float32) func(q []float32, n int) []string {
	if len(vecs) == 0 {
		return func([]float32, int) []string { return nil }
	}
	x := newVecIndex(len(vecs[0]))
	for i, v := range vecs {
		x.put(&entry{doc: Doc{ID: fmt.Sprint(i)}, ord: i}, normalised(v))
	}
	return func(q []float32, n int) []string {
		var out []string
		for _, s := range x.search(q, n, nil) {
			out = append(out, s.id)
		}
		return out
	}
}

// ColumnPassForTest turns the vector index's column pass (veccols.go) on
// (the default: for sparse queries) or off (every query scans rows).
func ColumnPassForTest(on bool) {
	colPass = colsAuto
	if !on {
		colPass = colsOff
	}
}

// NeighbourBoundForTest turns the vector channel's bound on its
// neighbours' scores (vecrescore.go) on (the default) or off.
func NeighbourBoundForTest(on bool) { neighbourBound = on }

// Names recall uses internally, exported to its black-box tests only.
type (
	Candidate     = candidate
	NeighbourFunc = neighbourFunc
)

// RRFK is the k of the reciprocal rank fusion.
const RRFK = rrfK

var (
	HashTokens      = hashTokens
	FNV1a32         = fnv1a32
	HashVector      = hashVector
	FuseRRF         = fuseRRF
	FuseWeighted    = fuseWeighted
	FuseWeightedMax = fuseWeightedMax
	ExpandRange     = expandRange
	ParseRange      = parseRange
)

// Loaded returns the number of loaded resources and the messages they held
// when they loaded.
func (ix *Index) Loaded() (resources, messages int) { return ix.loadedCounts() }

// VectorCount returns how many of resource's messages have a vector in the
// loaded collection, and how many messages it has, loading it if needed.
func (ix *Index) VectorCount(ctx context.Context, resource string) (vectors, messages int, err error) {
	return ix.vectorCount(ctx, resource)
}

// SetConcurrentMinForTest sets the resource size from which a hybrid search
// runs its channels concurrently, until the test ends.
func SetConcurrentMinForTest(t interface{ Cleanup(func()) }, n int) {
	old := concurrentMin
	concurrentMin = n
	t.Cleanup(func() { concurrentMin = old })
}

// GoCatch exposes goCatch.
var GoCatch = goCatch

// SaveSnapshotForTest writes resource's shard snapshot now (snapshot.go),
// from its loaded shard or a temporary one.
// It waits for the checks of loaded snapshots first (a shard still being
// verified is not written).
func (ix *Index) SaveSnapshotForTest(ctx context.Context, resource string) error {
	ix.WaitVerifiedForTest()
	return ix.saveSnapshot(ctx, resource)
}

// SnapshotDropsForTest returns how many shards were dropped because their
// snapshot file changed under their mapping (snapshot_fault.go).
func SnapshotDropsForTest() int64 { return snapshotDrops.Load() }

// SetShardCheckedHookForTest sets the function lockedShard calls once it
// has checked a shard's snapshot file, still holding its read lock (nil:
// none).
func SetShardCheckedHookForTest(f func()) { shardCheckedHook = f }

// SnapshotLoadsForTest returns how many shards were filled from a snapshot.
func SnapshotLoadsForTest() int64 { return snapshotLoads.Load() }

// WaitVerifiedForTest waits for the background checks of the loaded
// snapshots' vector parts (snapshot_verify.go).
func (ix *Index) WaitVerifiedForTest() {
	if ix.snap != nil {
		ix.snap.verifying.Wait()
	}
}

// SnapshotChecksForTest returns how many vector parts were verified and
// how many rejected.
func SnapshotChecksForTest() (verified, rejected int64) {
	return snapshotVerified.Load(), snapshotRejected.Load()
}

// SnapshotLayoutForTest returns where a snapshot file's vector part
// begins and ends (the footer follows it).
func SnapshotLayoutForTest(b []byte) (vecOff, vecEnd int) {
	vecOff, vecEnd, _ = SnapshotRegionsForTest(b)
	return vecOff, vecEnd
}

// SnapshotRegionsForTest returns where snapshot file b's vector part lies
// and the byte ranges of its contents and term ids (format 10:
// snapshot_blocks.go), [0] to [1] and [2] to [3].
func SnapshotRegionsForTest(b []byte) (vecOff, vecEnd int, regs [4]int) {
	metaEnd := int(binary.LittleEndian.Uint64(b[len(b)-snapFooter:]))
	g, _ := readRegions(b[:metaEnd])
	regs = [4]int{int(g.cFrom), int(g.cTo), int(g.tFrom), int(g.tTo)}
	return (metaEnd + snapAlign - 1) / snapAlign * snapAlign, len(b) - snapFooter, regs
}

// FixMessagesSumForTest sets the footer's sum of snapshot file b's
// messages part (format 10: its contents and term ids left out).
func FixMessagesSumForTest(b []byte) {
	metaEnd := binary.LittleEndian.Uint64(b[len(b)-snapFooter:])
	binary.LittleEndian.PutUint32(b[len(b)-16:], partSum(b[:metaEnd], 0))
}

// ShardDump is a canonical view of a loaded shard, for comparing two.
type ShardDump struct {
	Docs     map[string]DocDump
	Threads  map[string][]string // ids by seq
	DF       map[string]int      // terms held by at least one message
	N        int
	TotalLen int64
	Damaged  []string
	Topics   map[string]TopicDump
	TypeDF   []int // messages carrying each answer type (answertype.go)
}

// TopicDump is one thread's vector sum (topic.go).
type TopicDump struct {
	N   int
	Sum []float64
}

// DocDump is one message of a ShardDump.
type DocDump struct {
	Doc     Doc
	Created string // CreatedAt with its zone
	Terms   []string
	Vec     []float32
	Scale   float32
	Code    []int8
	Prev    string
	Next    string
	Atypes  uint8    // answer types (answertype.go)
	Ref     [2]int64 // relative date (reldates.go): first day, days
	// Post is what the postings' per-ord arrays hold of the message
	// (postings.go): term count, creation time, month, relative date's
	// first day and days, and the ids of its neighbours by ord.
	Post               [5]int64
	PostPrev, PostNext string
}

// ShardDumpForTest loads resource when needed and returns its dump. It
// verifies every block of a snapshot's contents and term ids first
// (snapshot_blocks.go), guarded as a search is: a garbled block drops the
// shard, and the dump is of the shard built from the Source.
func (ix *Index) ShardDumpForTest(ctx context.Context, resource string) (ShardDump, error) {
	return retryFaults(ix, func() (ShardDump, error) { return ix.shardDump(ctx, resource) })
}

func (ix *Index) shardDump(ctx context.Context, resource string) (ShardDump, error) {
	s, err := ix.lockedShard(ctx, resource)
	if err != nil {
		return ShardDump{}, err
	}
	defer s.mu.RUnlock()
	s.soundAll()
	terms := make([]string, len(s.stats.df))
	for t, id := range s.stats.ids.all() {
		terms[id] = t
	}
	d := ShardDump{Docs: map[string]DocDump{}, Threads: map[string][]string{}, DF: map[string]int{},
		N: s.stats.n, TotalLen: s.stats.totalLen, Damaged: s.damagedIDs(), TypeDF: slices.Clone(s.typeDF[:])}
	for id, df := range s.stats.df {
		if df != 0 {
			d.DF[terms[id]] = df
		}
	}
	d.Topics = map[string]TopicDump{}
	for t, tp := range s.topics {
		d.Topics[t] = TopicDump{N: tp.n, Sum: slices.Clone(tp.sum)}
	}
	for t, th := range s.threads {
		for _, e := range th {
			d.Threads[t] = append(d.Threads[t], e.doc.ID)
		}
	}
	for id, e := range s.docs.all() {
		dd := DocDump{Doc: e.doc, Created: e.doc.CreatedAt.String(), Atypes: e.atypes, Ref: [2]int64{int64(e.ref.from), int64(e.ref.n)}}
		dd.Doc.CreatedAt = time.Time{}
		for _, t := range e.terms {
			dd.Terms = append(dd.Terms, terms[t])
		}
		if e.prev != nil {
			dd.Prev = e.prev.doc.ID
		}
		if e.next != nil {
			dd.Next = e.next.doc.ID
		}
		dd.Post, dd.PostPrev, dd.PostNext = postDump(&s.post, e.ord)
		if e.vslot > 0 {
			dd.Vec = slices.Clone(s.vx.vec(e.vslot - 1))
			dd.Scale = s.vx.scales[e.vslot-1]
			dd.Code = slices.Clone(s.vx.code(e.vslot - 1))
		}
		d.Docs[id] = dd
	}
	return d, nil
}

// postDump returns what p's per-ord arrays hold of ord o (DocDump.Post).
func postDump(p *postings, o int) (post [5]int64, prev, next string) {
	post = [5]int64{int64(p.lens[o]), p.when[o], int64(p.month[o]), int64(p.ref[o].from), int64(p.ref[o].n)}
	if q := p.prev[o]; q >= 0 {
		prev = p.byOrd[q].doc.ID
	}
	if q := p.next[o]; q >= 0 {
		next = p.byOrd[q].doc.ID
	}
	return post, prev, next
}

// SetVerifyWaitForTest sets how long the check of a loaded vector part
// waits for the search that loaded it (snapshot_verify.go) and returns a
// function restoring it.
func SetVerifyWaitForTest(d time.Duration) (restore func()) {
	old := verifyWait
	verifyWait = d
	return func() { verifyWait = old }
}

// SetTextRulesForTest makes snapshots written and read until restore is
// called carry the rules of docTextVersion version (1: before a tool
// call's arguments were decoded, WithToolCalls).
func SetTextRulesForTest(version int) (restore func()) {
	old := answerRules
	answerRules = answerRulesOf(version)
	return func() { answerRules = old }
}

// SnapshotVersionForTest is the snapshot format's version (a benchmark's
// cached snapshot is keyed by it).
const SnapshotVersionForTest = snapVersion

// SetLoadMarkHookForTest sets the function called at the end of each
// stage of a load from a snapshot and of its first search (loadmarks.go;
// nil: none).
func SetLoadMarkHookForTest(f func(stage string)) { loadMarkHook = f }
