package recall

import "sync"

// searchScratch is the memory one Index.search reuses from the searches
// before it: the channel lists, the maps keyed by message id of the
// context rule, the neighbours and the fusion's merge, and the fusion's
// candidates with the scores they point to. Every LoadContext searches, and
// what a search allocated and dropped set the pace of the garbage
// collections, whose marking slowed the calls it overlapped (issue 14:
// 2-3 collections in 100 calls at 100k messages; BENCHMARKS.md). Nothing of
// it reaches the result: the hits copy what they keep (topHits).
//
// A scratch belongs to one search from getSearchScratch to release; the
// lexical goroutine of a hybrid search uses lex only, the rest is the
// calling goroutine's.
type searchScratch struct {
	lex         []scored // the lexical channel's list (lexicalPostings)
	vec, ranked []scored // the vector channel's list and what it ranked
	in          map[string]bool
	own         map[string]float64
	byID        map[string]int
	ents        map[string]*entry
	memo        map[int]float64 // lexScoring's own scores in a large shard
	cands       []candidate
	vals        []float64 // what cands' score pointers point to
}

// scratchMapMax is the size past which a map of the scratch is dropped
// rather than cleared: clear costs its capacity, and a rare search of a
// huge list (a filter widening to the whole resource) should not make
// every later one pay for it.
const scratchMapMax = 4096

var searchScratchPool = sync.Pool{New: func() any {
	return &searchScratch{in: map[string]bool{}, own: map[string]float64{}, byID: map[string]int{},
		ents: map[string]*entry{}, memo: map[int]float64{}}
}}

func getSearchScratch() *searchScratch { return searchScratchPool.Get().(*searchScratch) }

// release empties sc and returns it to the pool; sc must not be used
// after. No id or entry of the search stays in it.
func (sc *searchScratch) release() {
	for _, l := range []*[]scored{&sc.lex, &sc.vec, &sc.ranked} {
		clear((*l)[:cap(*l)])
		*l = (*l)[:0]
	}
	clear(sc.cands[:cap(sc.cands)])
	sc.cands, sc.vals = sc.cands[:0], sc.vals[:0]
	clearMap(&sc.in)
	clearMap(&sc.own)
	clearMap(&sc.byID)
	clearMap(&sc.ents)
	clearMap(&sc.memo)
	searchScratchPool.Put(sc)
}

// clearMap empties *m, or replaces it when it grew past scratchMapMax.
func clearMap[K comparable, V any](m *map[K]V) {
	if len(*m) > scratchMapMax {
		*m = map[K]V{}
		return
	}
	clear(*m)
}

// scratchMap returns sc's map chosen by pick, emptied, or a new one of
// capacity n when sc is nil (Finish's stages over another backend).
func scratchMap[K comparable, V any](sc *searchScratch, pick func(*searchScratch) map[K]V, n int) map[K]V {
	if sc == nil {
		return make(map[K]V, n)
	}
	m := pick(sc)
	clear(m)
	return m
}
