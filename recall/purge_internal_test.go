package recall

import (
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
)

// planSeg is a segment as the merge planner sees it.
type planSeg struct {
	id         uint64
	full, live int64
}

func (s planSeg) Id() uint64          { return s.id }
func (s planSeg) FullSize() int64     { return s.full }
func (s planSeg) LiveSize() int64     { return s.live }
func (s planSeg) HasVector() bool     { return false }
func (s planSeg) FileSize() int64     { return s.full * 100 }
func (s planSeg) LiveFileSize() int64 { return s.live * 100 }

// TestPurgeMergesEverySegment: Purge's merge plan is one task of every
// segment, whatever their sizes and deletions. With bleve's single-segment
// plan, a large segment without deletions beside small ones with deletions
// (a 10k-message resource, then a thread added and erased: seen with mnemo
// delete --thread, which then failed after 15 s, as did every later
// command on the directory) was left out of the merge; this test failed
// with ForceMerge's default options.
func TestPurgeMergesEverySegment(t *testing.T) {
	cases := map[string][]mergeplan.Segment{
		"large intact, small with deletions, pad": {planSeg{1, 10000, 10000}, planSeg{2, 4, 1}, planSeg{3, 1, 1}},
		"large with deletions":                    {planSeg{1, 10000, 9999}, planSeg{3, 1, 1}},
		"twelve of all sizes": {planSeg{1, 50000, 50000}, planSeg{2, 3, 0}, planSeg{3, 700, 690}, planSeg{4, 1, 1},
			planSeg{5, 20, 20}, planSeg{6, 9000, 1}, planSeg{7, 5, 5}, planSeg{8, 80, 79}, planSeg{9, 2, 2},
			planSeg{10, 100000, 100000}, planSeg{11, 6, 3}, planSeg{12, 1, 1}},
	}
	for name, segs := range cases {
		p, err := mergeplan.Plan(segs, purgeMergeOptions())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// Segments with no live document are a task of their own (they
		// are dropped); every other segment must be in one task.
		in, live := 0, 0
		for _, task := range plan(p) {
			in += len(task.Segments)
			if task.Segments[0].LiveSize() > 0 {
				live++
			}
		}
		if in != len(segs) || live != 1 {
			var got []int
			for _, task := range plan(p) {
				got = append(got, len(task.Segments))
			}
			t.Errorf("%s: tasks of %v segments, want every one of the %d segments, those with live documents in one task", name, got, len(segs))
		}
	}
}

func plan(p *mergeplan.MergePlan) []*mergeplan.MergeTask {
	if p == nil {
		return nil
	}
	return p.Tasks
}
