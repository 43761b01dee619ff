package recall

import (
	"context"
	"fmt"
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
