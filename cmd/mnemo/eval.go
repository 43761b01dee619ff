package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/mnemo-go/mnemo/cmd/mnemo/internal/evalrun"
	"github.com/mnemo-go/mnemo/cmd/mnemo/internal/evalset"
	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/recall"
)

// EvalCommand is `mnemo eval`: score recall on LoCoMo or LongMemEval
// (recall_any, recall_all, NDCG). Like every command it embeds Main: the
// process environment and the global flags. The harness is package
// evalrun.
type EvalCommand struct{ *Main }

// evalFlags are the flags of `mnemo eval` that are not evalrun.Config.
type evalFlags struct {
	format, dir, emb string
	asJSON           bool
}

// Run parses the flags of `mnemo eval` from args and runs it.
func (c *EvalCommand) Run(ctx context.Context, args []string) error {
	cfg, f, err := c.parse(args)
	if err != nil {
		return err
	}
	if cfg.Set, err = evalset.Load(cfg.Path, strings.TrimPrefix(f.format, "auto")); err != nil {
		return err
	}
	if cfg.Embedder, err = c.embedderNamed(ctx, f.emb); err != nil {
		return err
	}
	t, cleanup, err := c.evalTarget(f.dir)
	if err != nil {
		return err
	}
	defer cleanup()
	if err := t.apply(&cfg.Store); err != nil {
		return err
	}
	if c.Getenv != nil {
		if cfg.Store.Rerank, err = rerankFromEnv(c.Getenv); err != nil {
			return err
		}
	}
	cfg.Backend = t.backend()
	reports, err := c.runWatched(ctx, cfg)
	if err != nil {
		return err
	}
	if f.asJSON {
		if len(reports) == 1 {
			return c.printJSON(reports[0])
		}
		return c.printJSON(reports)
	}
	for i, out := range reports {
		if i > 0 {
			fmt.Fprintln(c.Stdout)
		}
		if err := evalrun.PrintReport(c.Stdout, out); err != nil {
			return err
		}
	}
	if len(reports) > 1 {
		return evalrun.PrintSummary(c.Stdout, reports)
	}
	return nil
}

// runWatched runs the evaluation (evalrun.Run) with its engine's outbox
// waits said at once on stderr (watchOutboxWait): its ingest ends with a
// sync, which on a database another process drains too may wait for that
// process's claimed rows.
func (c *EvalCommand) runWatched(ctx context.Context, cfg evalrun.Config) ([]*evalrun.Report, error) {
	raw := make(chan engine.Event, 64)
	cfg.Store.Events = raw
	watch := c.watchOutboxWait(raw)
	defer watch.Stop()
	return evalrun.Run(ctx, cfg)
}

// evalTarget is where eval ingests: the Postgres database of --db or
// $MNEMO_DB (the set is imported into it, and reused by the next run),
// else eval's --dir, else a scratch directory that cleanup removes. The
// global --dir is not used: eval never writes to the memory there.
func (c *EvalCommand) evalTarget(dir string) (t target, cleanup func(), err error) {
	cleanup = func() {}
	switch {
	case c.DB != "" && dir != "":
		return t, cleanup, &targetError{"eval: --dir and --db (or $MNEMO_DB) both choose where the set is ingested; give one"}
	case c.DB != "":
		return target{dsn: c.DB}, cleanup, nil
	case dir != "":
		return target{dir: dir}, cleanup, nil
	}
	if dir, err = os.MkdirTemp("", "mnemo-eval-"); err != nil {
		return t, cleanup, err
	}
	return target{dir: dir}, func() { os.RemoveAll(dir) }, nil
}

// parse parses the flags of `mnemo eval` and checks their rules.
func (c *EvalCommand) parse(args []string) (evalrun.Config, evalFlags, error) {
	fs := c.flags("eval", "FILE")
	var cfg evalrun.Config
	var f evalFlags
	fs.StringVar(&f.format, "format", "auto", "locomo, longmemeval or auto")
	kList := fs.String("k", "1,5,10", "cutoffs, comma-separated")
	mode := fs.String("mode", "all", "lexical, vector, hybrid, or all (the three on one ingest)")
	fs.StringVar(&cfg.Fusion, "fusion", "", fusionHelp)
	rng := fs.String("range", "0", "message range around each hit: N or BEFORE,AFTER")
	fs.StringVar(&cfg.Questions, "questions", "", "write one JSON line per question and mode to this file: the ranks of the first evidence turn and session")
	fs.BoolVar(&f.asJSON, "json", false, "print the report as JSON (an array of reports with --mode all)")
	fs.StringVar(&f.dir, "dir", "", "data directory to ingest into and keep (default: a scratch directory, removed afterwards); a directory that already holds the set is reused: the import finds every message stored and nothing is embedded again")
	fs.StringVar(&f.emb, "embedder", recall.HashID, "embedder: hash-384, use-lite (mnemo models fetch use-lite), or openai (OPENAI_BASE_URL, OPENAI_API_KEY, MNEMO_EMBED_MODEL)")
	t := &cfg.Tuning
	fs.IntVar(&t.CandidatePool, "pool", 0, "tuning: candidates per channel (0: default)")
	fs.Float64Var(&t.VectorWeight, "vector-weight", 0, "tuning: vector weight in the weighted fusion (0: default for the embedder)")
	fs.BoolVar(&t.BleveScores, "bleve-scores", false, "tuning: rank by bleve's own BM25 instead of the textbook re-scoring")
	fs.BoolVar(&t.NoCompounds, "no-compounds", false, "tuning: no bonus for verbatim compound identifiers")
	fs.Float64Var(&t.ContextWeight, "context-weight", 0, "tuning: weight of the previous turn's words in a turn's lexical score (0: default, negative: none)")
	fs.BoolVar(&t.NoDates, "no-dates", false, "tuning: no date terms and no date rule for the dates a question names")
	fs.BoolVar(&t.NoTurnAfter, "no-turn-after", false, "tuning: match a turn through the turn before it only, not also through the turn after it")
	fs.BoolVar(&t.NoExchange, "no-exchange", false, "tuning: no exchange rule (a reply to a question scored by the vector channel with the question's vector)")
	fs.BoolVar(&t.NoExchangeOrder, "no-exchange-order", false, "tuning: no exchange order rule (of a user's turn and the agent's reply after it, the user's turn ranks first, the reply when the question asks what the agent said)")
	fs.BoolVar(&t.NoAnswerTypes, "no-answer-types", false, "tuning: no answer-type terms for \"How long\" and \"When\" questions")
	fs.Float64Var(&t.TopicWeight, "topic-weight", 0, "tuning: weight of a turn's session topic (the query's cosine with its thread's mean vector) in its score (0: default, negative: none)")
	fs.Float64Var(&t.SessionWeight, "session-weight", 0, "tuning: weight of a turn's session evidence (its thread's best candidates) in its score (0: default, negative: none)")
	fs.Float64Var(&t.SpeakerWeight, "speaker-weight", 0, "tuning: raise a turn whose speaker the question names by this many standard deviations of the fused scores (0: default, negative: none)")
	fs.Float64Var(&t.DateWeight, "date-weight", 0, "tuning: raise a turn that carries a date the question names (said then, or about then) by this many standard deviations of the fused scores (0: default, negative: none)")
	fs.BoolVar(&t.MaxNorm, "max-norm", false, "tuning: max/min–max normalise channel scores in the weighted fusion instead of standardising them")
	if err := parse(fs, args); err != nil {
		return cfg, f, err
	}
	if err := c.checkGiven(fs, "--embedder", "an embedder ("+embedderNames+")",
		"--dir", "a data directory (left out, a scratch one)", "--questions", "a FILE",
		"--fusion", recall.FusionWeighted+" or "+recall.FusionRRF, "--format", "locomo, longmemeval or auto",
		"--mode", "lexical, vector, hybrid or all"); err != nil {
		return cfg, f, err // "--embedder is empty", not "unknown --embedder \"\""
	}
	if fs.NArg() != 1 {
		return cfg, f, c.usagef(fs, "eval needs one FILE")
	}
	switch f.format {
	case importer.FormatAuto, importer.FormatLoCoMo, importer.FormatLongMemEval:
	default:
		// Checked on reading the set, it failed after FILE was opened (exit 1).
		return cfg, f, c.valuef(fs, "--format must be auto, locomo or longmemeval, got %q", f.format)
	}
	if f.format == importer.FormatAuto {
		// Detected on reading the set, it failed as `evalset: format
		// "jsonl": want locomo or longmemeval` (exit 1).
		if d, err := importer.Detect(fs.Arg(0)); err == nil && d == importer.FormatJSONL {
			return cfg, f, c.valuef(fs, "%s is JSONL: eval reads LoCoMo and LongMemEval sets only (it scores their questions); import JSONL with mnemo ingest", shellWord(fs.Arg(0)))
		}
	}
	for name, v := range map[string]float64{"vector-weight": t.VectorWeight, "context-weight": t.ContextWeight,
		"topic-weight": t.TopicWeight, "session-weight": t.SessionWeight, "speaker-weight": t.SpeakerWeight, "date-weight": t.DateWeight} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return cfg, f, c.valuef(fs, "--%s wants a finite number, got %v", name, v)
		}
	}
	cfg.Path = fs.Arg(0)
	var err error
	if cfg.KS, err = c.cutoffs(fs, *kList); err != nil {
		return cfg, f, err
	}
	if cfg.Range, err = parseRange(*rng); err != nil {
		return cfg, f, c.valuef(fs, "%v", err)
	}
	return cfg, f, c.checkModes(fs, &cfg, *mode, f.emb)
}

// cutoffs parses --k: positive whole numbers, returned ascending.
func (c *EvalCommand) cutoffs(fs *flag.FlagSet, kList string) ([]int, error) {
	var ks []int
	for _, s := range strings.Split(kList, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || k < 1 || k > recall.MaxMessageRange*100 {
			return nil, c.valuef(fs, "--k wants positive whole numbers, got %q", kList)
		}
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks, nil
}

// checkModes sets cfg.Modes from --mode and checks that recall accepts each
// mode with --fusion and --range, and that --embedder names an embedder.
func (c *EvalCommand) checkModes(fs *flag.FlagSet, cfg *evalrun.Config, mode, emb string) error {
	cfg.Modes = evalrun.Modes
	switch recall.Mode(mode) {
	case "all":
	case recall.ModeLexical, recall.ModeVector, recall.ModeHybrid:
		cfg.Modes = []recall.Mode{recall.Mode(mode)}
	default:
		// recall's own check named lexical, vector and hybrid only.
		return c.valuef(fs, "--mode must be lexical, vector, hybrid or all, got %q", mode)
	}
	for _, md := range cfg.Modes {
		opts := recall.Options{Scope: recall.ScopeResource, Mode: md, Fusion: cfg.Fusion, MessageRange: cfg.Range}
		if err := opts.Validate(); err != nil {
			return c.valuef(fs, "%v", flagError(err))
		}
	}
	if !knownEmbedder(emb, false) {
		return c.valuef(fs, "unknown --embedder %q (want %s)", emb, embedderNames)
	}
	return nil
}
