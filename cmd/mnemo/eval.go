package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mnemo-go/mnemo/cmd/mnemo/internal/evalset"
	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/models"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/recall/uselite"
)

// evalSessionTopK is how many turns a LongMemEval question retrieves so that
// sessions can be ranked by their best turn down to the largest k.
const evalSessionTopK = 100

// evalReport is the JSON output of mnemo eval.
type evalReport struct {
	File      string                                `json:"file"`
	Format    string                                `json:"format"`
	Mode      string                                `json:"mode"`
	Fusion    string                                `json:"fusion,omitempty"`
	Range     recall.Range                          `json:"range"`
	Embedder  string                                `json:"embedder"`
	Tuning    recall.Tuning                         `json:"tuning"`
	Questions int                                   `json:"questions"`
	Skipped   int                                   `json:"skipped"`
	Ingest    ingestStats                           `json:"ingest"`
	SearchP50 float64                               `json:"searchP50Ms"`
	SearchP99 float64                               `json:"searchP99Ms"`
	Turn      map[string]map[string]evalset.Metrics `json:"turn"`              // category → "@k" → metrics
	Session   map[string]map[string]evalset.Metrics `json:"session,omitempty"` // LongMemEval only
	Counts    map[string]int                        `json:"counts"`
	ks        []int
	// perQuestion, when set, receives one JSON line per question and mode.
	perQuestion *json.Encoder
}

// evalQuestion is one line of `mnemo eval --questions`: where the first
// evidence turn and session ranked (0: not in the retrieved list).
type evalQuestion struct {
	ID          string `json:"id"`
	Category    string `json:"category"`
	Mode        string `json:"mode"`
	TurnRank    int    `json:"turnRank"`
	SessionRank int    `json:"sessionRank,omitempty"`
}

type ingestStats struct {
	Messages int     `json:"messages"`
	Seconds  float64 `json:"seconds"`
	// ImportSeconds is when the last Append returned; Seconds when both
	// indexes had caught up.
	ImportSeconds float64 `json:"importSeconds"`
	PerSecond     float64 `json:"messagesPerSecond"`
}

// evalModes are the modes `--mode all` measures, in print order.
var evalModes = []recall.Mode{recall.ModeLexical, recall.ModeVector, recall.ModeHybrid}

// EvalCommand is `mnemo eval`: score recall on LoCoMo or LongMemEval
// (recall_any, recall_all, NDCG). Like every command it embeds Main: the
// process environment and the global flags.
type EvalCommand struct{ *Main }

// Run parses the flags of `mnemo eval` from args and runs it.
func (c *EvalCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags("eval", "FILE")
	format := fs.String("format", "auto", "locomo, longmemeval or auto")
	kList := fs.String("k", "1,5,10", "cutoffs, comma-separated")
	mode := fs.String("mode", "all", "lexical, vector, hybrid, or all (the three on one ingest)")
	fusion := fs.String("fusion", "", "weighted or rrf (default: the measured default)")
	rng := fs.String("range", "0", "message range around each hit: N or BEFORE,AFTER")
	questions := fs.String("questions", "", "write one JSON line per question and mode to this file: the ranks of the first evidence turn and session")
	asJSON := fs.Bool("json", false, "print the report as JSON (an array of reports with --mode all)")
	dir := fs.String("dir", "", "data directory to ingest into and keep (default: a scratch directory, removed afterwards); a directory that already holds the set is reused: the import finds every message stored and nothing is embedded again")
	emb := fs.String("embedder", recall.HashID, "embedder: hash-384, use-lite (mnemo models fetch use-lite), or openai (OPENAI_BASE_URL, OPENAI_API_KEY, MNEMO_EMBED_MODEL)")
	pool := fs.Int("pool", 0, "tuning: candidates per channel (0: default)")
	weight := fs.Float64("vector-weight", 0, "tuning: vector weight in the weighted fusion (0: default for the embedder)")
	bleveScores := fs.Bool("bleve-scores", false, "tuning: rank by bleve's own BM25 instead of the textbook re-scoring")
	noCompounds := fs.Bool("no-compounds", false, "tuning: no bonus for verbatim compound identifiers")
	ctxWeight := fs.Float64("context-weight", 0, "tuning: weight of the previous turn's words in a turn's lexical score (0: default, negative: none)")
	noDates := fs.Bool("no-dates", false, "tuning: no date terms for the dates a question names")
	maxNorm := fs.Bool("max-norm", false, "tuning: max/min–max normalise channel scores in the weighted fusion instead of standardising them")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return c.usagef(fs, "eval needs one FILE")
	}
	var ks []int
	for _, s := range strings.Split(*kList, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || k < 1 || k > recall.MaxMessageRange*100 {
			return c.usagef(fs, "--k wants positive whole numbers, got %q", *kList)
		}
		ks = append(ks, k)
	}
	sort.Ints(ks)
	r, err := parseRange(*rng)
	if err != nil {
		return c.usagef(fs, "%v", err)
	}
	modes := evalModes
	if *mode != "all" {
		modes = []recall.Mode{recall.Mode(*mode)}
	}
	for _, md := range modes {
		opts := recall.Options{Scope: recall.ScopeResource, Mode: md, Fusion: *fusion, MessageRange: r}
		if err := opts.Validate(); err != nil {
			return c.usagef(fs, "%v", err)
		}
	}
	if !knownEmbedder(*emb, false) {
		return c.usagef(fs, "unknown --embedder %q (want %s)", *emb, embedderNames)
	}
	path := fs.Arg(0)
	set, err := evalset.Load(path, strings.TrimPrefix(*format, "auto"))
	if err != nil {
		return err
	}
	embedder, err := c.embedderNamed(ctx, *emb)
	if err != nil {
		return err
	}
	data := *dir
	if data == "" {
		if data, err = os.MkdirTemp("", "mnemo-eval-"); err != nil {
			return err
		}
		defer os.RemoveAll(data)
	}
	tuning := recall.Tuning{CandidatePool: *pool, VectorWeight: *weight, BleveScores: *bleveScores, NoCompounds: *noCompounds, MaxNorm: *maxNorm, ContextWeight: *ctxWeight, NoDates: *noDates}
	e, err := engine.Open(ctx, engine.Config{Dir: data, Embedder: embedder, RecallTuning: tuning})
	if err != nil {
		return err
	}
	defer e.Close()

	start := time.Now()
	rep, err := importer.Import(ctx, e, path, importer.Options{Format: set.Format})
	if err != nil {
		return err
	}
	imported := time.Since(start).Seconds()
	if err := e.SyncIndexes(ctx); err != nil {
		return err
	}
	took := time.Since(start).Seconds()
	var perQuestion *json.Encoder
	if *questions != "" {
		f, err := os.Create(*questions)
		if err != nil {
			return err
		}
		defer f.Close()
		perQuestion = json.NewEncoder(f)
	}
	var reports []*evalReport
	for _, md := range modes {
		opts := recall.Options{Scope: recall.ScopeResource, Mode: md, Fusion: *fusion, MessageRange: r}
		out := &evalReport{
			File: path, Format: set.Format, Mode: string(md), Fusion: opts.Fusion, Range: r, Embedder: embedder.ID(), Tuning: tuning,
			Questions: len(set.Questions), Skipped: set.Skipped, Counts: map[string]int{}, ks: ks,
			Ingest:      ingestStats{Messages: rep.Messages, Seconds: took, ImportSeconds: imported, PerSecond: float64(rep.Messages) / took},
			perQuestion: perQuestion,
		}
		if err := evalMode(ctx, e, set, opts, out); err != nil {
			return err
		}
		reports = append(reports, out)
	}
	if *asJSON {
		if len(reports) == 1 {
			return c.printJSON(reports[0])
		}
		return c.printJSON(reports)
	}
	for i, out := range reports {
		if i > 0 {
			fmt.Fprintln(c.Stdout)
		}
		if err := c.printReport(out); err != nil {
			return err
		}
	}
	if len(reports) > 1 {
		return c.printSummary(reports)
	}
	return nil
}

// evalMode asks every question of set with opts and fills out's metrics
// and latencies.
func evalMode(ctx context.Context, e *engine.Engine, set *evalset.Set, opts recall.Options, out *evalReport) error {
	ks := out.ks
	turnSum := map[string]map[string]evalset.Metrics{}
	sessSum := map[string]map[string]evalset.Metrics{}
	addTo := func(sum map[string]map[string]evalset.Metrics, cat, key string, mt evalset.Metrics) {
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
	var lat []float64
	topK := ks[len(ks)-1]
	if set.Format == importer.FormatLongMemEval {
		topK = max(topK, evalSessionTopK)
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
		res, err := e.Search(ctx, engine.SearchRequest{ResourceID: q.Resource, Query: q.Text, Options: o})
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
		for _, k := range ks {
			key := "@" + strconv.Itoa(k)
			// recall_any/all over the top-k hits and their range
			// neighbours; NDCG over the ranked hits alone.
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
				addTo(turnSum, q.Category, key, mt)
			}
			if len(q.Sessions) > 0 {
				var sessions []string
				for _, h := range hits {
					if h.Reason == recall.ReasonHit {
						sessions = append(sessions, h.ThreadID)
					}
				}
				addTo(sessSum, q.Category, key, evalset.Score(sessions, q.Sessions, k))
			}
		}
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

// questionRanks returns where q's first evidence turn and session ranked
// among the hits (in rank order).
func questionRanks(q evalset.Question, mode string, hits []recall.Hit) evalQuestion {
	out := evalQuestion{ID: q.ID, Category: q.Category, Mode: mode}
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

// printEvalSummary prints the overall figures of each mode side by side.
func (c *EvalCommand) printSummary(reports []*evalReport) error {
	fmt.Fprintf(c.Stdout, "\noverall (%s, embedder %s)\n", reports[0].File, reports[0].Embedder)
	tw := tabwriter.NewWriter(c.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	ks := reports[0].ks
	head := "level\tmode\t"
	for _, metric := range []string{"any", "all", "ndcg"} {
		for _, k := range ks {
			head += fmt.Sprintf("%s@%d\t", metric, k)
		}
	}
	fmt.Fprintln(tw, head)
	for _, lv := range []string{"turn", "session"} {
		for _, r := range reports {
			t := r.Turn
			if lv == "session" {
				t = r.Session
			}
			if t == nil {
				continue
			}
			row := lv + "\t" + r.Mode + "\t"
			for _, metric := range []string{"any", "all", "ndcg"} {
				for _, k := range ks {
					mt := t["overall"]["@"+strconv.Itoa(k)]
					row += fmt.Sprintf("%.3f\t", map[string]float64{"any": mt.RecallAny, "all": mt.RecallAll, "ndcg": mt.NDCG}[metric])
				}
			}
			fmt.Fprintln(tw, row)
		}
	}
	return tw.Flush()
}

func average(sum map[string]map[string]evalset.Metrics, n map[string]int) map[string]map[string]evalset.Metrics {
	for c, byK := range sum {
		for k, s := range byK {
			d := float64(n[c])
			byK[k] = evalset.Metrics{RecallAny: s.RecallAny / d, RecallAll: s.RecallAll / d, NDCG: s.NDCG / d}
		}
	}
	return sum
}

func (c *EvalCommand) printReport(r *evalReport) error {
	note := ""
	if r.Embedder == recall.HashID {
		note = " (lexical-level, not semantic)"
	}
	fmt.Fprintf(c.Stdout, "%s (%s): %d questions scored, %d skipped · mode %s · range %d,%d · embedder %s%s\n",
		r.File, r.Format, r.Questions, r.Skipped, r.Mode, r.Range.Before, r.Range.After, r.Embedder, note)
	fmt.Fprintf(c.Stdout, "ingest: %d messages in %.1f s (appends done at %.1f s; %.0f messages/s with both indexes caught up) · search p50 %.2f ms, p99 %.2f ms (resource loaded)\n",
		r.Ingest.Messages, r.Ingest.Seconds, r.Ingest.ImportSeconds, r.Ingest.PerSecond, r.SearchP50, r.SearchP99)
	levels := []struct {
		name string
		t    map[string]map[string]evalset.Metrics
	}{{"turn", r.Turn}}
	if r.Session != nil {
		levels = append(levels, struct {
			name string
			t    map[string]map[string]evalset.Metrics
		}{"session", r.Session})
	}
	for _, lv := range levels {
		fmt.Fprintf(c.Stdout, "\n%s level\n", lv.name)
		tw := tabwriter.NewWriter(c.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		head := "category\tn\t"
		for _, metric := range []string{"any", "all", "ndcg"} {
			for _, k := range r.ks {
				head += fmt.Sprintf("%s@%d\t", metric, k)
			}
		}
		fmt.Fprintln(tw, head)
		cats := make([]string, 0, len(lv.t))
		for c := range lv.t {
			if c != "overall" {
				cats = append(cats, c)
			}
		}
		sort.Strings(cats)
		for _, c := range append(cats, "overall") {
			row := fmt.Sprintf("%s\t%d\t", c, r.Counts[c])
			for _, metric := range []string{"any", "all", "ndcg"} {
				for _, k := range r.ks {
					mt := lv.t[c]["@"+strconv.Itoa(k)]
					v := map[string]float64{"any": mt.RecallAny, "all": mt.RecallAll, "ndcg": mt.NDCG}[metric]
					row += fmt.Sprintf("%.3f\t", v)
				}
			}
			fmt.Fprintln(tw, row)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// embedderNames lists the embedders a command can name.
const embedderNames = recall.HashID + ", " + uselite.ID + " or openai"

// knownEmbedder reports whether name is an embedder mnemo can build (or,
// with auto, "" or "auto": the directory's recorded one).
func knownEmbedder(name string, auto bool) bool {
	switch name {
	case recall.HashID, uselite.ID, "openai":
		return true
	case "", "auto":
		return auto
	}
	return false
}

// embedderNamed returns the embedder a command asked for.
func (m *Main) embedderNamed(ctx context.Context, name string) (recall.Embedder, error) {
	switch name {
	case "", recall.HashID:
		return recall.HashEmbedder{}, nil
	case uselite.ID:
		dir, err := m.modelsDir()
		if err != nil {
			return nil, err
		}
		return uselite.Open(uselite.Config{Dir: models.Path(dir, uselite.ID)})
	case "openai":
		cfg, err := recall.OpenAIConfigFromEnv(m.Getenv)
		if err != nil {
			return nil, err
		}
		return recall.NewOpenAIEmbedder(ctx, cfg)
	}
	return nil, fmt.Errorf("unknown embedder %q (want %s, %s or openai)", name, recall.HashID, uselite.ID)
}
