package engine

import (
	"math"
	"sort"

	"github.com/mnemo-go/mnemo/internal/tokens"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
)

// This file holds LoadContext's budget stage (LoadRequest.TokenBudget):
// recalled turns are cut by runs, lowest-scored first, then observations,
// oldest first.

// observationTokens estimates the tokens of rendered observations with the
// one estimator (internal/tokens), plus 16 for each one's provenance line.
func observationTokens(obs []observe.Observation) int {
	n := 0
	for _, o := range obs {
		n += tokens.Text(o.Content) + 16
	}
	return n
}

// budgetObservations drops the oldest observations (by creation) until the
// rest fit in budget tokens, and returns the kept ones in their order and the
// memctx entries of the dropped ones (reason "budget"; the entry's messageId
// is the observation id, its seq the first seq it covers).
func budgetObservations(obs []observe.Observation, budget int) ([]observe.Observation, []journal.Ref) {
	if observationTokens(obs) <= budget {
		return obs, nil
	}
	byAge := make([]int, len(obs))
	for i := range byAge {
		byAge[i] = i
	}
	sort.SliceStable(byAge, func(a, b int) bool { return obs[byAge[a]].CreatedAt.Before(obs[byAge[b]].CreatedAt) })
	cut := map[int]bool{}
	used := observationTokens(obs)
	for _, i := range byAge {
		if used <= budget {
			break
		}
		cut[i] = true
		used -= observationTokens(obs[i : i+1])
	}
	var kept []observe.Observation
	var out []journal.Ref
	for i, o := range obs {
		if !cut[i] {
			kept = append(kept, o)
			continue
		}
		out = append(out, journal.Ref{ThreadID: o.ThreadID, Seq: o.FromSeq, MessageID: o.ID, Role: o.Level,
			Preview: Preview(Message{Content: o.Content}), Reason: journal.ReasonBudget})
	}
	return kept, out
}

// applyBudget keeps the recalled turns within budget estimated tokens. It
// drops whole runs of consecutive recalled turns of a thread (a hit with its
// range neighbours and repairs) from the lowest-scored run up, so no tool-call
// group is split. Recent turns are never dropped.
func applyBudget(turns []turn, budget int) ([]turn, []dropped) {
	type run struct {
		idx    []int
		score  float64
		tokens int
	}
	var recalled []int
	used := 0
	for i, t := range turns {
		if !t.Recent {
			recalled = append(recalled, i)
			used += t.Tokens
		}
	}
	if used <= budget {
		return turns, nil
	}
	sort.Slice(recalled, func(a, b int) bool {
		x, y := turns[recalled[a]], turns[recalled[b]]
		if x.ThreadID != y.ThreadID {
			return x.ThreadID < y.ThreadID
		}
		return x.Seq < y.Seq
	})
	var runs []*run
	for n, i := range recalled {
		t := turns[i]
		if n == 0 || turns[recalled[n-1]].ThreadID != t.ThreadID || turns[recalled[n-1]].Seq+1 != t.Seq {
			runs = append(runs, &run{score: math.Inf(-1)})
		}
		r := runs[len(runs)-1]
		r.idx = append(r.idx, i)
		r.tokens += t.Tokens
		if t.Score != nil && *t.Score > r.score {
			r.score = *t.Score
		}
	}
	sort.SliceStable(runs, func(a, b int) bool { return runs[a].score < runs[b].score })
	cut := map[int]bool{}
	for _, r := range runs {
		if used <= budget {
			break
		}
		for _, i := range r.idx {
			cut[i] = true
		}
		used -= r.tokens
	}
	var kept []turn
	var out []dropped
	for i, t := range turns {
		if cut[i] {
			out = append(out, dropped{turn: t, why: journal.ReasonBudget})
		} else {
			kept = append(kept, t)
		}
	}
	return kept, out
}
