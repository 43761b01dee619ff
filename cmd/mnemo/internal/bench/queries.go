package bench

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"

	"github.com/mnemo-go/mnemo/engine"
)

// query is one measured query; target is the message the synthetic query
// was drawn from ("" for an imported file).
type query struct {
	resource, thread, text, target string
}

// chooseQueries returns Options.Queries queries, the synthetic corpus's own
// or, for an imported file, fileQueries; it records how many resources
// they reach.
func (r *run) chooseQueries(ctx context.Context) ([]query, error) {
	var out []query
	if r.corpus != nil {
		out = make([]query, 0, r.o.Queries)
		for i := range r.o.Queries {
			q := r.corpus.Query(i, r.o.QueryResources)
			out = append(out, query{resource: q.ResourceID, thread: q.ThreadID, text: q.Text, target: q.Target})
		}
	} else {
		var err error
		if out, err = fileQueries(ctx, r.e, r.o); err != nil {
			return nil, err
		}
	}
	distinct := map[string]bool{}
	for _, q := range out {
		distinct[q.resource] = true
	}
	r.rep.Corpus.Queried = len(distinct)
	return out, nil
}

// fileQueries returns o.Queries queries for an imported file: the newest
// user message (its first 12 words) of a random thread, the resources taken
// in turn.
func fileQueries(ctx context.Context, e *engine.Engine, o Options) ([]query, error) {
	threads, err := e.ListThreads(ctx, "")
	if err != nil {
		return nil, err
	}
	if len(threads) == 0 {
		return nil, errors.New("the file holds no threads")
	}
	var res []string
	byRes := map[string][]engine.Thread{}
	for _, t := range threads {
		if byRes[t.ResourceID] == nil {
			res = append(res, t.ResourceID)
		}
		byRes[t.ResourceID] = append(byRes[t.ResourceID], t)
	}
	if o.QueryResources > 0 && o.QueryResources < len(res) {
		res = res[:o.QueryResources]
	}
	rng := rand.New(rand.NewPCG(o.Seed, 7))
	out := make([]query, 0, o.Queries)
	for i := range o.Queries {
		ths := byRes[res[i%len(res)]]
		t := ths[rng.IntN(len(ths))]
		msgs, err := e.Messages(ctx, t.ID, max(1, t.LastSeq-30), t.LastSeq)
		if err != nil {
			return nil, err
		}
		text := ""
		for j := len(msgs) - 1; j >= 0 && text == ""; j-- {
			if msgs[j].Role == engine.RoleUser {
				w := strings.Fields(msgs[j].Content)
				text = strings.Join(w[:min(len(w), 12)], " ")
			}
		}
		if text == "" {
			text = t.ID
		}
		out = append(out, query{resource: t.ResourceID, thread: t.ID, text: text})
	}
	return out, nil
}
