package observe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// The observer's plan, ObserveRange's checks and PendingStart as they were
// when they read every turn after the watermark (or the range's start) at
// once: the reference the scans must agree with.

func refPlan(ctx context.Context, o *Observer, threadID string, wm int64) (*Plan, error) {
	turns, err := o.cfg.Source.Messages(ctx, threadID, wm+1, math.MaxInt64)
	if err != nil {
		return nil, fmt.Errorf("observe: read %s: %w", threadID, err)
	}
	p := &Plan{ThreadID: threadID, Watermark: wm}
	end := max(len(turns)-o.cfg.RecentN, 0)
	pending, err := refPendingStart(ctx, o, threadID, turns)
	if err != nil {
		return nil, err
	}
	end = min(end, pending)
	for end > 0 && end < len(turns) && turns[end].Role == RoleTool {
		end--
	}
	eligible := turns[:end]
	for _, t := range eligible {
		p.PendingTokens += t.tokens()
	}
	p.PendingTurns = len(eligible)
	p.Due = p.PendingTokens >= o.cfg.Threshold
	if len(eligible) > 0 {
		p.Next = eligible[:refChunkEnd(eligible, o.cfg.ChunkTokens)]
	}
	return p, nil
}

func refChunkEnd(turns []Turn, budget int) int {
	sum, best, bestExchange := 0, 0, 0
	for i, t := range turns {
		sum += t.tokens()
		n := i + 1
		if sum > budget {
			break
		}
		if n == len(turns) || turns[n].Role != RoleTool {
			best = n
			if n == len(turns) || turns[n].Role == RoleUser {
				bestExchange = n
			}
		}
	}
	switch {
	case bestExchange > 0:
		return bestExchange
	case best > 0:
		return best
	}
	n := 1
	for n < len(turns) && turns[n].Role == RoleTool {
		n++
	}
	return n
}

func refPendingStartOf(turns []Turn) int {
	start, newestUser := len(turns), -1
	for i := len(turns) - 1; i >= 0; i-- {
		t := turns[i]
		if t.Role == RoleAssistant && len(t.ToolCalls) == 0 {
			return max(start, len(turns)-MaxPendingTurns)
		}
		if t.Role == RoleUser {
			start = i
			if newestUser < 0 {
				newestUser = i
			}
		}
	}
	if newestUser < 0 {
		return len(turns)
	}
	return max(newestUser, len(turns)-MaxPendingTurns)
}

func refPendingStart(ctx context.Context, o *Observer, threadID string, turns []Turn) (int, error) {
	if len(turns) == 0 || turns[0].Seq <= 1 {
		return refPendingStartOf(turns), nil
	}
	for _, t := range turns {
		if t.Role == RoleAssistant && len(t.ToolCalls) == 0 {
			return refPendingStartOf(turns), nil
		}
	}
	first := turns[0].Seq
	before, err := o.cfg.Source.Messages(ctx, threadID, max(1, first-MaxPendingTurns), first-1)
	if err != nil {
		return 0, fmt.Errorf("observe: read %s: %w", threadID, err)
	}
	all := append(append(make([]Turn, 0, len(before)+len(turns)), before...), turns...)
	return max(refPendingStartOf(all)-len(before), 0), nil
}

func refRangeTurns(ctx context.Context, o *Observer, threadID string, fromSeq, toSeq int64) ([]Turn, error) {
	rest, err := o.cfg.Source.Messages(ctx, threadID, fromSeq, math.MaxInt64)
	if err != nil {
		return nil, fmt.Errorf("observe: read %s: %w", threadID, err)
	}
	n := 0
	for n < len(rest) && rest[n].Seq <= toSeq {
		n++
	}
	pending, err := refPendingStart(ctx, o, threadID, rest)
	if err != nil {
		return nil, err
	}
	if n > pending {
		return nil, fmt.Errorf("%w: range %d..%d of %s reaches the pending turn from seq %d (no answer follows it yet)",
			ErrConfig, fromSeq, toSeq, threadID, rest[pending].Seq)
	}
	if n < len(rest) && rest[n].Role == RoleTool {
		return nil, fmt.Errorf("%w: range %d..%d of %s splits a tool-call group", ErrConfig, fromSeq, toSeq, threadID)
	}
	turns := rest[:n]
	if len(turns) == 0 {
		return nil, fmt.Errorf("%w: no turns in %d..%d of %s", ErrEmptyAnswer, fromSeq, toSeq, threadID)
	}
	return turns, nil
}

// sliceSource is a Source over one thread's turns in seq order; it counts
// the turns it hands out and the largest read.
type sliceSource struct {
	turns         []Turn
	reads, served int
	largest       int
	failAt        int // the read (1-based) that fails; 0 never
}

var errRead = errors.New("read failed")

func (s *sliceSource) read(keep func(Turn) bool, limit int) ([]Turn, error) {
	s.reads++
	if s.reads == s.failAt {
		return nil, errRead
	}
	var out []Turn
	for _, t := range s.turns {
		if len(out) < limit && keep(t) {
			out = append(out, t)
		}
	}
	s.served += len(out)
	s.largest = max(s.largest, len(out))
	return out, nil
}

func (s *sliceSource) Messages(_ context.Context, threadID string, from, to int64) ([]Turn, error) {
	return s.read(func(t Turn) bool { return t.ThreadID == threadID && t.Seq >= from && t.Seq <= to }, math.MaxInt)
}

// pagedSlice is a sliceSource that is also a PageSource.
type pagedSlice struct{ *sliceSource }

func (s pagedSlice) MessagesPage(_ context.Context, threadID string, from int64, limit int) ([]Turn, error) {
	return s.read(func(t Turn) bool { return t.ThreadID == threadID && t.Seq >= from }, limit)
}

// randomThread is a thread of up to 300 turns: user turns, answers,
// tool calls followed by their results (sometimes long runs of results,
// sometimes none, sometimes a result with no call before it), seqs with
// gaps (erased turns), token sizes from 1 to well over a chunk, some left
// to the estimate.
func randomThread(r *rand.Rand) []Turn {
	var turns []Turn
	seq := int64(0)
	add := func(t Turn) {
		seq++
		if r.IntN(8) == 0 {
			seq += r.Int64N(80) // erased turns before this one
		}
		t.ThreadID, t.Seq, t.ID = "t", seq, fmt.Sprintf("m%d", seq)
		switch r.IntN(10) {
		case 0: // left to the estimate
			t.Content = fmt.Sprintf("turn %d %s", seq, "words ")
		case 1:
			t.Tokens = 200 + r.IntN(600)
		default:
			t.Tokens = 1 + r.IntN(60)
		}
		turns = append(turns, t)
	}
	n := r.IntN(300)
	if r.IntN(10) == 0 {
		n = r.IntN(5)
	}
	// Some threads never answer; some answer rarely.
	answers := []int{0, 1, 5, 20}[r.IntN(4)]
	for len(turns) < n {
		switch k := r.IntN(20); {
		case k < 7:
			add(Turn{Role: RoleUser})
		case k < 7+answers:
			add(Turn{Role: RoleAssistant})
		case k < 36:
			add(Turn{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c", Name: "f", Arguments: "{}"}}})
			results := r.IntN(4)
			if r.IntN(10) == 0 {
				results = r.IntN(150)
			}
			for range results {
				add(Turn{Role: RoleTool, ToolCallID: "c"})
			}
		default:
			add(Turn{Role: RoleTool, ToolCallID: "orphan"})
		}
	}
	return turns
}

// randomObserver is an observer over src with a random recent window,
// chunk and threshold (as New leaves them).
func randomObserver(r *rand.Rand, src Source) *Observer {
	return &Observer{cfg: Config{
		Source:      src,
		RecentN:     []int{0, 1, 3, 10, 63, 64, 65, 200, 1 << 20}[r.IntN(9)],
		ChunkTokens: []int{1, 30, 100, 500, 5000}[r.IntN(5)],
		Threshold:   r.IntN(3000),
	}}
}

// randomWatermark is 0, a seq of the thread, one past or before one, or
// past the end.
func randomWatermark(r *rand.Rand, turns []Turn) int64 {
	if len(turns) == 0 || r.IntN(6) == 0 {
		return r.Int64N(3)
	}
	wm := turns[r.IntN(len(turns))].Seq + r.Int64N(3) - 1
	if r.IntN(20) == 0 {
		wm = turns[len(turns)-1].Seq + r.Int64N(3)
	}
	return max(wm, 0)
}

// TestPlanAsBefore: the plan read a page at a time is the plan of the
// whole thread read at once, on random threads (tool-call groups, orphan
// results, threads without answers, seq gaps, tokens within and over a
// chunk), watermarks, recent windows, chunk sizes and page sizes, from a
// PageSource and from a plain Source; so are ObserveRange's checks and
// PendingStart.
func TestPlanAsBefore(t *testing.T) {
	defer func(n int) { pageTurns = n }(pageTurns)
	for seed := range uint64(3000) {
		checkPlanAsBefore(t, seed)
		if t.Failed() {
			return
		}
	}
}

// FuzzPlanAsBefore is TestPlanAsBefore's check for one seed.
func FuzzPlanAsBefore(f *testing.F) {
	defer func(n int) { pageTurns = n }(pageTurns)
	for _, seed := range []uint64{1, 2, 3, 42} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) { checkPlanAsBefore(t, seed) })
}

func checkPlanAsBefore(t *testing.T, seed uint64) {
	t.Helper()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(seed, 7))
	turns := randomThread(r)
	pageTurns = []int{1, 2, 3, 7, 64, 256}[r.IntN(6)]
	ref := &sliceSource{turns: turns}
	refObs := randomObserver(r, ref)
	var src Source = &sliceSource{turns: turns}
	if r.IntN(4) > 0 {
		src = pagedSlice{&sliceSource{turns: turns}}
	}
	o := &Observer{cfg: refObs.cfg}
	o.cfg.Source = src
	wm := randomWatermark(r, turns)
	what := fmt.Sprintf("seed %d: %d turns, wm %d, RecentN %d, ChunkTokens %d, pages of %d, %T",
		seed, len(turns), wm, o.cfg.RecentN, o.cfg.ChunkTokens, pageTurns, src)
	want, err := refPlan(ctx, refObs, "t", wm)
	if err != nil {
		t.Fatal(err)
	}
	got, err := o.planAfter(ctx, "t", wm)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: plan\n%+v\nwant\n%+v", what, got, want)
	}
	if got, want := PendingStart(turns), refPendingStartOf(turns); got != want {
		t.Errorf("%s: PendingStart %d, want %d", what, got, want)
	}
	from, to := randomWatermark(r, turns), randomWatermark(r, turns)
	if r.IntN(2) == 0 {
		to = from + r.Int64N(40)
	}
	wantTurns, wantErr := refRangeTurns(ctx, refObs, "t", from, to)
	gotTurns, gotErr := o.rangeTurns(ctx, "t", from, to)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(gotTurns, wantTurns) {
		t.Errorf("%s: range %d..%d: %d turns, %v; want %d turns, %v", what, from, to, len(gotTurns), gotErr, len(wantTurns), wantErr)
	}
}

// TestPlanReadFails: an error of any read of the plan (a page, or the
// turns before the watermark that place the pending turn) is returned,
// naming the thread.
func TestPlanReadFails(t *testing.T) {
	defer func(n int) { pageTurns = n }(pageTurns)
	pageTurns = 2
	// No answer after the watermark: the turns before it are read last.
	turns := []Turn{{Role: RoleUser}, {Role: RoleAssistant}, {Role: RoleUser}, {Role: RoleUser}, {Role: RoleUser}, {Role: RoleUser}}
	for i := range turns {
		turns[i].ThreadID, turns[i].Seq, turns[i].Tokens = "t", int64(i+1), 5
	}
	for failAt := 1; failAt <= 4; failAt++ {
		src := &sliceSource{turns: turns, failAt: failAt}
		o := &Observer{cfg: Config{Source: pagedSlice{src}, ChunkTokens: 100}}
		_, err := o.planAfter(context.Background(), "t", 2)
		if !errors.Is(err, errRead) || err.Error() != "observe: read t: read failed" {
			t.Errorf("read %d fails: %v", failAt, err)
		}
		if src.reads != failAt {
			t.Errorf("read %d fails: %d reads", failAt, src.reads)
		}
	}
}
