package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// Exactness is the vector channel's exactness (issue 14): recall@10 of
// its top 10 (the int8 vector index, recall's vecIndex) against chromem-go's
// exact scan (recall.Tuning.ExactVectors) over the same queries.
type Exactness struct {
	Queries     int     `json:"queries"`
	RecallAt10  float64 `json:"recallAt10"`
	ExactHits   int     `json:"exactHits"`   // hits of the exact scan
	ApproxFound int     `json:"approxFound"` // of them, found by the index
}

// Ratios compare this run with a baseline report (--baseline, e.g. the
// 10k messages / 10 resources run): issue 14's flatness and first-use
// targets.
type Ratios struct {
	Baseline string `json:"baseline"`
	// LoadContextP50 and P99: this run's warm LoadContext over the
	// baseline's (targets ≤ 2 and ≤ 3 for 100k in one resource against
	// 10k over 10).
	LoadContextP50 float64 `json:"loadContextP50"`
	LoadContextP99 float64 `json:"loadContextP99"`
	// FirstUse: this run's first use p50 over the baseline's warm
	// LoadContext p50 (target ≤ 10).
	FirstUse float64 `json:"firstUse"`
}

// vectorTop10 returns the ids of each query's vector-channel top 10.
func vectorTop10(ctx context.Context, e *engine.Engine, queries []query) ([][]string, error) {
	out := make([][]string, len(queries))
	for i, q := range queries {
		opts := recall.Options{Mode: recall.ModeVector, TopK: 10, Scope: recall.ScopeResource}
		r, err := e.Search(ctx, engine.SearchRequest{ResourceID: q.resource, ThreadID: q.thread, Query: q.text, Options: opts})
		if err != nil {
			return nil, err
		}
		for _, h := range r.Hits {
			out[i] = append(out[i], h.MessageID)
		}
	}
	return out, nil
}

// measureExactness searches queries through *e (the vector index), then
// closes it and opens the directory again with the exact scan, searches
// again and compares; *e is the exact engine afterwards (the caller closes
// it).
func measureExactness(ctx context.Context, e **engine.Engine, cfg engine.Config, queries []query) (Exactness, error) {
	approx, err := vectorTop10(ctx, *e, queries)
	if err != nil {
		return Exactness{}, err
	}
	if err := (*e).Close(); err != nil {
		return Exactness{}, err
	}
	cfg.RecallTuning.ExactVectors = true
	if *e, err = engine.Open(ctx, cfg); err != nil {
		return Exactness{}, err
	}
	exact, err := vectorTop10(ctx, *e, queries)
	if err != nil {
		return Exactness{}, err
	}
	x := Exactness{Queries: len(queries)}
	for i := range exact {
		in := map[string]bool{}
		for _, id := range approx[i] {
			in[id] = true
		}
		for _, id := range exact[i] {
			x.ExactHits++
			if in[id] {
				x.ApproxFound++
			}
		}
	}
	if x.ExactHits > 0 {
		x.RecallAt10 = float64(x.ApproxFound) / float64(x.ExactHits)
	}
	return x, nil
}

// LoadBaseline reads a `mnemo bench --json` report for --baseline.
func LoadBaseline(file string) (*Report, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--baseline: %w", err)
	}
	var base Report
	if err := json.Unmarshal(b, &base); err != nil {
		return nil, fmt.Errorf("--baseline %s: not a `mnemo bench --json` report: %w", file, err)
	}
	if base.LoadContext.P50 <= 0 || base.LoadContext.P99 <= 0 {
		return nil, fmt.Errorf("--baseline %s: no LoadContext figures", file)
	}
	return &base, nil
}

// NewRatios compares rep with the baseline report base, read from file.
func NewRatios(rep, base *Report, file string) *Ratios {
	return &Ratios{
		Baseline:       fmt.Sprintf("%s (%d messages, %d resources)", file, base.Corpus.Messages, base.Corpus.Resources),
		LoadContextP50: rep.LoadContext.P50 / base.LoadContext.P50,
		LoadContextP99: rep.LoadContext.P99 / base.LoadContext.P99,
		FirstUse:       rep.FirstUse.P50 / base.LoadContext.P50,
	}
}

// printScale writes the exactness and the ratios of rep.
func (r *Report) printScale(w io.Writer) {
	if x := r.Exactness; x != nil && x.ExactHits > 0 {
		fmt.Fprintf(w, "%-34s %.4f (%d of %d exact top-10 hits, %d queries)\n", "vector index recall@10 vs exact", x.RecallAt10, x.ApproxFound, x.ExactHits, x.Queries)
	}
	if q := r.Ratios; q != nil {
		fmt.Fprintf(w, "%-34s against %s\n", "ratios", q.Baseline)
		fmt.Fprintf(w, "%-34s p50 %.2f× (target ≤ 2), p99 %.2f× (target ≤ 3)\n", "  LoadContext flatness", q.LoadContextP50, q.LoadContextP99)
		fmt.Fprintf(w, "%-34s %.1f× the baseline's warm LoadContext p50 (target ≤ 10)\n", "  first use", q.FirstUse)
	}
}
