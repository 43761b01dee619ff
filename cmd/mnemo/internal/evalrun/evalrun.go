package evalrun

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"time"

	"github.com/mnemo-go/mnemo/cmd/mnemo/internal/evalset"
	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/recall"
)

// sessionTopK is how many turns a LongMemEval question retrieves so that
// sessions can be ranked by their best turn down to the largest k.
const sessionTopK = 100

// Modes are the modes `--mode all` measures, in print order.
var Modes = []recall.Mode{recall.ModeLexical, recall.ModeVector, recall.ModeHybrid}

// Config says what to evaluate and how.
type Config struct {
	Path string       // the benchmark file
	Set  *evalset.Set // its questions (evalset.Load of Path)
	// Store says where to ingest: engine.Config's Dir (a data directory)
	// or its Postgres database; Run adds Embedder and RecallTuning. A
	// store that already holds the set is reused (the import finds every
	// message stored).
	Store engine.Config
	// Backend names the store in the report: "sqlite" or "postgres".
	Backend  string
	Embedder recall.Embedder
	Tuning   recall.Tuning
	Modes    []recall.Mode // each searched on the one ingest
	Fusion   string        // "" is recall's default
	Range    recall.Range  // message range around each hit
	KS       []int         // cutoffs, ascending
	// Questions, when set, is a file that receives one JSON line per
	// question and mode (Question).
	Questions string
}

// Report is the JSON output of mnemo eval for one mode.
type Report struct {
	File      string                                `json:"file"`
	Format    string                                `json:"format"`
	Mode      string                                `json:"mode"`
	Fusion    string                                `json:"fusion,omitempty"`
	Range     recall.Range                          `json:"range"`
	Embedder  string                                `json:"embedder"`
	Reranker  string                                `json:"reranker,omitempty"` // the re-rank stage's (Store.Rerank), "" without one
	Backend   string                                `json:"backend"`
	Tuning    recall.Tuning                         `json:"tuning"`
	Questions int                                   `json:"questions"`
	Skipped   int                                   `json:"skipped"`
	Ingest    IngestStats                           `json:"ingest"`
	SearchP50 float64                               `json:"searchP50Ms"`
	SearchP99 float64                               `json:"searchP99Ms"`
	Turn      map[string]map[string]evalset.Metrics `json:"turn"`              // category → "@k" → metrics
	Session   map[string]map[string]evalset.Metrics `json:"session,omitempty"` // LongMemEval only
	Counts    map[string]int                        `json:"counts"`
	ks        []int
	// perQuestion, when set, receives one JSON line per question and mode.
	perQuestion *json.Encoder
}

// Question is one line of `mnemo eval --questions`: where the first
// evidence turn and session ranked (0: not in the retrieved list).
type Question struct {
	ID          string `json:"id"`
	Category    string `json:"category"`
	Mode        string `json:"mode"`
	TurnRank    int    `json:"turnRank"`
	SessionRank int    `json:"sessionRank,omitempty"`
}

// IngestStats are the figures of the one ingest.
type IngestStats struct {
	Messages int     `json:"messages"`
	Seconds  float64 `json:"seconds"`
	// ImportSeconds is when the last Append returned; Seconds when both
	// indexes had caught up.
	ImportSeconds float64 `json:"importSeconds"`
	PerSecond     float64 `json:"messagesPerSecond"`
}

// Run opens an engine on cfg.Store, ingests cfg.Path and returns one
// report per mode, in cfg.Modes order.
func Run(ctx context.Context, cfg Config) ([]*Report, error) {
	ec := cfg.Store
	ec.Embedder, ec.RecallTuning = cfg.Embedder, cfg.Tuning
	e, err := engine.Open(ctx, ec)
	if err != nil {
		return nil, err
	}
	defer e.Close()

	start := time.Now()
	rep, err := importer.Import(ctx, e, cfg.Path, importer.Options{Format: cfg.Set.Format})
	if err != nil {
		return nil, err
	}
	imported := time.Since(start).Seconds()
	if err := e.SyncIndexes(ctx); err != nil {
		return nil, err
	}
	took := time.Since(start).Seconds()
	var perQuestion *json.Encoder
	if cfg.Questions != "" {
		f, err := os.Create(cfg.Questions)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		perQuestion = json.NewEncoder(f)
	}
	var reports []*Report
	for _, md := range cfg.Modes {
		opts := recall.Options{Scope: recall.ScopeResource, Mode: md, Fusion: cfg.Fusion, MessageRange: cfg.Range}
		out := &Report{
			File: cfg.Path, Format: cfg.Set.Format, Mode: string(md), Fusion: opts.Fusion, Range: cfg.Range, Embedder: cfg.Embedder.ID(), Reranker: rerankerID(cfg.Store.Rerank), Backend: cfg.Backend, Tuning: cfg.Tuning,
			Questions: len(cfg.Set.Questions), Skipped: cfg.Set.Skipped, Counts: map[string]int{}, ks: cfg.KS,
			Ingest:      IngestStats{Messages: rep.Messages, Seconds: took, ImportSeconds: imported, PerSecond: float64(rep.Messages) / took},
			perQuestion: perQuestion,
		}
		if err := evalMode(ctx, e, cfg.Set, opts, out); err != nil {
			return nil, err
		}
		reports = append(reports, out)
	}
	return reports, nil
}

// sums accumulates metrics: category → "@k" → summed metrics.
type sums map[string]map[string]evalset.Metrics

// add adds mt to cat's and to "overall"'s sums at key.
func (sum sums) add(cat, key string, mt evalset.Metrics) {
	for _, c := range []string{cat, "overall"} {
		if sum[c] == nil {
			sum[c] = map[string]evalset.Metrics{}
		}
		s := sum[c][key]
		s.RecallAny += mt.RecallAny
		s.RecallAll += mt.RecallAll
		s.NDCG += mt.NDCG
		sum[c][key] = s
	}
}

// evalMode asks every question of set with opts and fills out's metrics
// and latencies.
func evalMode(ctx context.Context, e *engine.Engine, set *evalset.Set, opts recall.Options, out *Report) error {
	ks := out.ks
	turnSum, sessSum := sums{}, sums{}
	var lat []float64
	topK := ks[len(ks)-1]
	if set.Format == importer.FormatLongMemEval {
		topK = max(topK, sessionTopK)
	}
	for _, q := range set.Questions {
		if err := ctx.Err(); err != nil {
			return err
		}
		o := opts
		o.TopK = topK
		// The first search of a resource loads it (messages, statistics,
		// vectors); latency is measured on the loaded resource.
		if _, err := e.Search(ctx, engine.SearchRequest{ResourceID: q.Resource, Query: "warm up", Options: recall.Options{TopK: 1}}); err != nil {
			return fmt.Errorf("question %s: %w", q.ID, err)
		}
		t0 := time.Now()
		res, err := e.Search(ctx, engine.SearchRequest{ResourceID: q.Resource, Query: q.Text, Options: o, At: q.At})
		if err != nil {
			return fmt.Errorf("question %s: %w", q.ID, err)
		}
		lat = append(lat, float64(time.Since(t0).Microseconds())/1000)
		hits := append([]recall.Hit(nil), res.Hits...)
		recall.SortByRank(hits)
		out.Counts[q.Category]++
		out.Counts["overall"]++
		if out.perQuestion != nil {
			if err := out.perQuestion.Encode(questionRanks(q, out.Mode, hits)); err != nil {
				return err
			}
		}
		score(q, hits, ks, turnSum, sessSum)
	}
	sort.Float64s(lat)
	if len(lat) > 0 {
		out.SearchP50, out.SearchP99 = lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*99/100)]
	}
	turnCounts := map[string]int{}
	for _, q := range set.Questions {
		if len(q.Turns) > 0 {
			turnCounts[q.Category]++
			turnCounts["overall"]++
		}
	}
	out.Turn = average(turnSum, turnCounts)
	if len(sessSum) > 0 {
		out.Session = average(sessSum, out.Counts)
	}
	return nil
}

// score adds q's metrics at each cutoff of ks, given its hits in rank
// order: recall_any/all over the top-k hits and their range neighbours,
// NDCG over the ranked hits alone; sessions by their best turn.
func score(q evalset.Question, hits []recall.Hit, ks []int, turnSum, sessSum sums) {
	for _, k := range ks {
		key := "@" + strconv.Itoa(k)
		var expanded, ranked []string
		for _, h := range hits {
			if h.Rank > k {
				break
			}
			expanded = append(expanded, h.MessageID)
			if h.Reason == recall.ReasonHit {
				ranked = append(ranked, h.MessageID)
			}
		}
		if len(q.Turns) > 0 {
			mt := evalset.Score(expanded, q.Turns, len(expanded))
			mt.NDCG = evalset.Score(ranked, q.Turns, k).NDCG
			turnSum.add(q.Category, key, mt)
		}
		if len(q.Sessions) > 0 {
			var sessions []string
			for _, h := range hits {
				if h.Reason == recall.ReasonHit {
					sessions = append(sessions, h.ThreadID)
				}
			}
			sessSum.add(q.Category, key, evalset.Score(sessions, q.Sessions, k))
		}
	}
}

// questionRanks returns where q's first evidence turn and session ranked
// among the hits (in rank order).
func questionRanks(q evalset.Question, mode string, hits []recall.Hit) Question {
	out := Question{ID: q.ID, Category: q.Category, Mode: mode}
	turns, sessions := map[string]bool{}, map[string]bool{}
	for _, id := range q.Turns {
		turns[id] = true
	}
	for _, id := range q.Sessions {
		sessions[id] = true
	}
	seen := map[string]bool{}
	for _, h := range hits {
		if h.Reason != recall.ReasonHit {
			continue
		}
		if out.TurnRank == 0 && turns[h.MessageID] {
			out.TurnRank = h.Rank
		}
		if !seen[h.ThreadID] {
			seen[h.ThreadID] = true
			if out.SessionRank == 0 && sessions[h.ThreadID] {
				out.SessionRank = len(seen)
			}
		}
	}
	return out
}

// average divides each category's sums by its count n.
func average(sum sums, n map[string]int) map[string]map[string]evalset.Metrics {
	for c, byK := range sum {
		for k, s := range byK {
			d := float64(n[c])
			byK[k] = evalset.Metrics{RecallAny: s.RecallAny / d, RecallAll: s.RecallAll / d, NDCG: s.NDCG / d}
		}
	}
	return sum
}

// rerankerID names the re-rank stage's re-ranker, "" without one.
func rerankerID(r *recall.Rerank) string {
	if r == nil || r.Reranker == nil {
		return ""
	}
	return r.Reranker.ID()
}
