package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/enginetest/synth"
	"github.com/mnemo-go/mnemo/recall"
)

// benchRecall are the recall options of issue 8's LoadContext target:
// scope resource, topK 5, range 1 (the recent window is 10).
var benchRecall = recall.Options{TopK: 5, MessageRange: recall.Range{Before: 1, After: 1}, Scope: recall.ScopeResource}

// benchRecentN is the recent window of the LoadContext measurement.
const benchRecentN = 10

// benchOptions are the flags of `mnemo bench`.
type benchOptions struct {
	size, resources, batch, writers  int
	queries, queryResources, appends int
	seed                             uint64
	file, format, work, reuse        string
	baseline                         string
	exactness                        int
	keep, sweep                      bool
}

// BenchCommand is `mnemo bench`: measure ingest, LoadContext, search, open
// time, RSS and disk on a synthetic corpus or a file. Like every command it
// embeds Main: the process environment and the global flags.
type BenchCommand struct{ *Main }

// Run parses the flags of `mnemo bench` from args and runs it.
func (c *BenchCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags("bench", "")
	var o benchOptions
	size := fs.String("size", "10k", "synthetic corpus size: 10k, 100k, 1m or a number of messages")
	fs.IntVar(&o.resources, "resources", 0, "resources of the synthetic corpus (0: one per 1,000 messages)")
	fs.StringVar(&o.file, "file", "", "benchmark an imported file (see ingest) instead of the synthetic corpus")
	fs.StringVar(&o.format, "format", "auto", "format of --file: auto, jsonl, locomo or longmemeval")
	fs.IntVar(&o.batch, "batch", 10, "messages per Append during ingest")
	fs.IntVar(&o.writers, "writers", 1, "concurrent appenders during ingest (threads are split among them)")
	fs.IntVar(&o.queries, "queries", 300, "measured LoadContext runs, and searches per channel")
	fs.IntVar(&o.queryResources, "query-resources", 50, "queries go to this many resources (each loaded into memory on first use; 0: all)")
	fs.IntVar(&o.appends, "appends", 500, "single-message appends measured in the filled engine")
	fs.Uint64Var(&o.seed, "seed", synth.DefaultSeed, "seed of the synthetic corpus and of the query choice")
	fs.StringVar(&o.work, "work", "", "data directory for the run; must not exist (default: a temporary directory, removed afterwards)")
	fs.BoolVar(&o.keep, "keep", false, "keep the data directory")
	fs.BoolVar(&o.sweep, "sweep", false, "after the measurements, search every resource once (memory bound and reload cost; synthetic corpus only)")
	fs.StringVar(&o.reuse, "reuse", "", "measure a data directory kept by an earlier synthetic run (--keep) without ingesting again")
	fs.IntVar(&o.exactness, "exactness", 100, "queries whose vector top 10 is compared with chromem-go's exact scan (the directory is opened again for it; 0: off)")
	fs.StringVar(&o.baseline, "baseline", "", "`FILE`, a report of mnemo bench --json (e.g. of --size 10k): print this run's flatness and first-use ratios against")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file (go tool pprof)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return c.usagef(fs, "bench takes no arguments")
	}
	n, err := parseSize(*size)
	if err != nil {
		return c.usagef(fs, "%v", err)
	}
	o.size = n
	if o.batch < 1 || o.writers < 1 || o.queries < 1 || o.appends < 0 || o.resources < 0 || o.queryResources < 0 || o.exactness < 0 {
		return c.usagef(fs, "--batch, --writers and --queries must be positive; --appends, --resources, --query-resources and --exactness not negative")
	}
	switch {
	case o.reuse != "":
		if o.work != "" || o.file != "" {
			return c.usagef(fs, "--reuse excludes --work and --file")
		}
		o.work = o.reuse
	case o.work == "":
		dir, err := os.MkdirTemp("", "mnemo-bench-")
		if err != nil {
			return err
		}
		o.work = filepath.Join(dir, "data")
		if !o.keep {
			defer os.RemoveAll(dir)
		}
	default:
		if _, err := os.Stat(o.work); err == nil {
			return c.usagef(fs, "--work %s exists; bench needs a fresh directory", o.work)
		}
	}
	var base *benchReport
	if o.baseline != "" {
		if base, err = loadBaseline(o.baseline); err != nil {
			return c.usagef(fs, "%v", err)
		}
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	rep, err := bench(ctx, o, func(format string, a ...any) { fmt.Fprintf(c.Stderr, format+"\n", a...) })
	if err != nil {
		return err
	}
	if o.keep {
		rep.Notes = append(rep.Notes, "data directory kept: "+o.work)
	}
	if base != nil {
		rep.Ratios = ratios(rep, base, o.baseline)
	}
	if *asJSON {
		return c.printJSON(rep)
	}
	rep.printTable(c.Stdout)
	return nil
}

// parseSize parses 10k, 100k, 1m or a plain number.
func parseSize(s string) (int, error) {
	mult := 1
	switch {
	case strings.HasSuffix(strings.ToLower(s), "k"):
		mult, s = 1000, s[:len(s)-1]
	case strings.HasSuffix(strings.ToLower(s), "m"):
		mult, s = 1_000_000, s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("--size must be like 10k, 100k, 1m or a positive number, got %q", s)
	}
	return n * mult, nil
}

// benchManifest is the file in a kept data directory that records the
// synthetic corpus, for --reuse.
const benchManifest = "bench-corpus.json"

// benchQuery is one measured query.
type benchQuery struct {
	resource, thread, text, target string
}

// bench runs the phases: ingest, single appends, close and cold open,
// first use of the queried resources, warm LoadContext, search per channel.
func bench(ctx context.Context, o benchOptions, logf func(string, ...any)) (*benchReport, error) {
	cfg := engine.Config{Dir: o.work, Embedder: recall.HashEmbedder{}} // the configuration: hash-384, whatever is installed
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer func() { e.Close() }()
	rep := &benchReport{Search: map[string]latency{}}
	rep.Machine = machine(recall.HashEmbedder{}.ID())
	rep.Notes = append(rep.Notes, "embedder hash-384 (issue 8's configuration, whatever is installed): lexical-level similarity, no semantics")

	// Ingest.
	var corpus *synth.Corpus
	start, cpu0 := time.Now(), cpuTime()
	var calls []time.Duration
	manifest := filepath.Join(o.work, benchManifest)
	if o.reuse != "" {
		b, err := os.ReadFile(manifest)
		if err != nil {
			return nil, fmt.Errorf("--reuse %s: not kept by a synthetic bench run: %w", o.reuse, err)
		}
		var c synth.Config
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, fmt.Errorf("--reuse %s: %w", manifest, err)
		}
		if corpus, err = synth.New(c); err != nil {
			return nil, err
		}
		rep.Corpus = benchCorpus{Source: "synthetic (reused data directory)", Messages: c.Messages, Resources: c.Resources, Threads: corpus.Len(), Seed: c.Seed}
		rep.Notes = append(rep.Notes, "ingest not measured: --reuse of "+o.reuse)
		logf("bench: reusing %s (%d messages)", o.reuse, c.Messages)
	} else if o.file != "" {
		rep.Corpus = benchCorpus{Source: o.file}
		logf("bench: importing %s", o.file)
		ta := &timedAppender{e: e}
		r, err := importer.Import(ctx, ta, o.file, importer.Options{Format: o.format})
		if err != nil {
			return nil, err
		}
		rep.Corpus.Messages, rep.Corpus.Resources, rep.Corpus.Threads = r.Messages, r.Resources, r.Threads
		calls = ta.calls
		rep.Ingest.Batch = 0 // the importer's own batching
	} else {
		corpus, err = synth.New(synth.Config{Messages: o.size, Resources: o.resources, Seed: o.seed})
		if err != nil {
			return nil, err
		}
		c := corpus.Config()
		rep.Corpus = benchCorpus{Source: "synthetic", Messages: c.Messages, Resources: c.Resources, Threads: corpus.Len(), Seed: c.Seed}
		rep.Ingest.Batch = o.batch
		logf("bench: ingesting %d synthetic messages (%d resources, %d threads, batch %d, %d writer(s))", c.Messages, c.Resources, corpus.Len(), o.batch, o.writers)
		if calls, err = ingestSynth(ctx, e, corpus, o); err != nil {
			return nil, err
		}
		if b, err := json.Marshal(c); err == nil {
			_ = os.WriteFile(manifest, b, 0o600) // for a later --reuse
		}
	}
	rep.Ingest.AppendSeconds = time.Since(start).Seconds()
	if err := e.SyncIndexes(ctx); err != nil {
		return nil, err
	}
	elapsed := time.Since(start)
	rep.Ingest.Messages = rep.Corpus.Messages
	rep.Ingest.Seconds = elapsed.Seconds()
	rep.Ingest.CPUSeconds = (cpuTime() - cpu0).Seconds()
	rep.Ingest.MessagesPerSec = float64(rep.Corpus.Messages) / elapsed.Seconds()
	rep.Ingest.AppendCall = summarize(calls)
	if o.reuse != "" {
		rep.Ingest = benchIngest{}
	}
	logf("bench: ingest %.0f msgs/s (%.1f s)", rep.Ingest.MessagesPerSec, rep.Ingest.Seconds)

	// The queries, chosen before the timed phases.
	queries, err := benchQueries(ctx, e, corpus, o)
	if err != nil {
		return nil, err
	}
	distinct := map[string]bool{}
	for _, q := range queries {
		distinct[q.resource] = true
	}
	rep.Corpus.Queried = len(distinct)

	// Single-message appends into the filled engine.
	rng := rand.New(rand.NewPCG(o.seed, 99))
	var single []time.Duration
	for i := range o.appends {
		q := queries[rng.IntN(len(queries))]
		t0 := time.Now()
		_, err := e.Append(ctx, engine.AppendRequest{ThreadID: q.thread, Messages: []engine.Message{{Role: engine.RoleUser, Content: fmt.Sprintf("%s, and one more thing (%d).", q.text, i)}}})
		if err != nil {
			return nil, err
		}
		single = append(single, time.Since(t0))
	}
	rep.Append = summarize(single)
	if err := e.SyncIndexes(ctx); err != nil {
		return nil, err
	}
	rep.Disk.SQLite = fileSizes(filepath.Join(o.work, engine.DatabaseFile), "", "-wal", "-shm")
	rep.Disk.Lexical = dirSize(filepath.Join(o.work, engine.LexicalDir))
	rep.Disk.Total = dirSize(o.work)

	// Cold open.
	if err := e.Close(); err != nil {
		return nil, err
	}
	rep.PeakRSSIngest = procStatus("VmHWM")
	runtime.GC()
	debug.FreeOSMemory()
	if !resetPeakRSS() {
		rep.Notes = append(rep.Notes, "could not reset the peak RSS after ingest: the serve peak includes ingest")
	}
	t0 := time.Now()
	if e, err = engine.Open(ctx, cfg); err != nil {
		return nil, err
	}
	rep.OpenMs = float64(time.Since(t0).Microseconds()) / 1000
	logf("bench: open %.1f ms; %d queries over %d resources", rep.OpenMs, len(queries), len(distinct))

	// First use of each queried resource, then warm LoadContext. Every
	// run has a new id, as an agent's turns do (the run-id check and the
	// memctx insert are part of the measured path).
	tag := strconv.FormatInt(time.Now().UnixNano(), 36)
	load := func(run string, q benchQuery) (*engine.Context, time.Duration, error) {
		opts := benchRecall
		t0 := time.Now()
		c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "bench-" + tag + "-" + run, ThreadID: q.thread, ResourceID: q.resource, Query: q.text,
			RecentN: benchRecentN, Recall: &opts})
		return c, time.Since(t0), err
	}
	var first []time.Duration
	seen := map[string]bool{}
	for i, q := range queries {
		if seen[q.resource] {
			continue
		}
		seen[q.resource] = true
		_, d, err := load(fmt.Sprintf("first-%d", i), q)
		if err != nil {
			return nil, err
		}
		first = append(first, d)
	}
	rep.FirstUse = summarize(first)
	var warm []time.Duration
	found := 0
	cpu0 = cpuTime()
	for i, q := range queries {
		c, d, err := load(strconv.Itoa(i), q)
		if err != nil {
			return nil, err
		}
		warm = append(warm, d)
		if q.target != "" && inPrompt(c, q.target) {
			found++
		}
	}
	rep.LoadContext = summarize(warm)
	rep.LoadContextCPUMs = float64((cpuTime() - cpu0).Microseconds()) / 1000 / float64(len(queries))
	if corpus != nil {
		rep.TargetRecalled = float64(found) / float64(len(queries))
	}
	for _, mode := range []recall.Mode{recall.ModeLexical, recall.ModeVector, recall.ModeHybrid} {
		var ds []time.Duration
		for _, q := range queries {
			opts := benchRecall
			opts.Mode = mode
			t0 := time.Now()
			if _, err := e.Search(ctx, engine.SearchRequest{ResourceID: q.resource, ThreadID: q.thread, Query: q.text, Options: opts}); err != nil {
				return nil, err
			}
			ds = append(ds, time.Since(t0))
		}
		rep.Search[string(mode)] = summarize(ds)
	}
	rep.PeakRSSServe = procStatus("VmHWM")
	if o.sweep && corpus != nil {
		// Every resource once: beyond recall.DefaultMaxLoaded messages the
		// least recently searched resources are unloaded.
		logf("bench: sweeping %d resources", corpus.Resources())
		var ds []time.Duration
		for r := range corpus.Resources() {
			q := corpus.Query(r, corpus.Resources())
			opts := benchRecall
			t0 := time.Now()
			if _, err := e.Search(ctx, engine.SearchRequest{ResourceID: q.ResourceID, Query: q.Text, Options: opts}); err != nil {
				return nil, err
			}
			ds = append(ds, time.Since(t0))
		}
		rep.Sweep = summarize(ds)
		rep.PeakRSSSweep = procStatus("VmHWM")
	}
	if o.exactness > 0 {
		logf("bench: exactness of the vector index over %d queries (opening the directory again with the exact scan)", min(o.exactness, len(queries)))
		x, err := measureExactness(ctx, &e, cfg, queries[:min(o.exactness, len(queries))])
		if err != nil {
			return nil, err
		}
		rep.Exactness = &x
	}
	return rep, nil
}

// ingestSynth appends the corpus in batches, each thread by one writer
// (threads are dealt round-robin), and returns every Append call's time.
func ingestSynth(ctx context.Context, e *engine.Engine, corpus *synth.Corpus, o benchOptions) ([]time.Duration, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	chans := make([]chan synth.Thread, o.writers)
	for i := range chans {
		chans[i] = make(chan synth.Thread, 4)
	}
	go func() {
		defer func() {
			for _, ch := range chans {
				close(ch)
			}
		}()
		for i := range corpus.Len() {
			select {
			case chans[i%len(chans)] <- corpus.Thread(i):
			case <-ctx.Done():
				return
			}
		}
	}()
	var (
		mu    sync.Mutex
		calls []time.Duration
		first error
		wg    sync.WaitGroup
	)
	for _, ch := range chans {
		wg.Go(func() {
			var mine []time.Duration
			defer func() {
				mu.Lock()
				calls = append(calls, mine...)
				mu.Unlock()
			}()
			for th := range ch {
				for from := 0; from < len(th.Messages); from += o.batch {
					msgs := th.Messages[from:min(from+o.batch, len(th.Messages))]
					t0 := time.Now()
					_, err := e.Append(ctx, engine.AppendRequest{ThreadID: th.ID, ResourceID: th.ResourceID, Messages: msgs})
					mine = append(mine, time.Since(t0))
					if err != nil {
						mu.Lock()
						if first == nil {
							first = fmt.Errorf("append %s: %w", th.ID, err)
						}
						mu.Unlock()
						cancel()
						for range ch {
						}
						return
					}
				}
			}
		})
	}
	wg.Wait()
	return calls, first
}

// benchQueries returns o.queries queries: the synthetic corpus's own, or,
// for an imported file, the newest user message (its first 12 words) of a
// random thread.
func benchQueries(ctx context.Context, e *engine.Engine, corpus *synth.Corpus, o benchOptions) ([]benchQuery, error) {
	out := make([]benchQuery, 0, o.queries)
	if corpus != nil {
		for i := range o.queries {
			q := corpus.Query(i, o.queryResources)
			out = append(out, benchQuery{resource: q.ResourceID, thread: q.ThreadID, text: q.Text, target: q.Target})
		}
		return out, nil
	}
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
	if o.queryResources > 0 && o.queryResources < len(res) {
		res = res[:o.queryResources]
	}
	rng := rand.New(rand.NewPCG(o.seed, 7))
	for i := range o.queries {
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
		out = append(out, benchQuery{resource: t.ResourceID, thread: t.ID, text: text})
	}
	return out, nil
}

// inPrompt reports whether message id reached the composed context.
func inPrompt(c *engine.Context, id string) bool {
	for _, m := range c.Messages {
		if m.MessageID == id {
			return true
		}
	}
	return false
}

// timedAppender records the time of each Append an importer makes.
type timedAppender struct {
	e     *engine.Engine
	calls []time.Duration
}

func (t *timedAppender) Append(ctx context.Context, req engine.AppendRequest) (*engine.AppendResult, error) {
	t0 := time.Now()
	r, err := t.e.Append(ctx, req)
	t.calls = append(t.calls, time.Since(t0))
	return r, err
}

// fileSizes sums the sizes of base+suffix for each suffix.
func fileSizes(base string, suffixes ...string) int64 {
	var n int64
	for _, s := range suffixes {
		if fi, err := os.Stat(base + s); err == nil {
			n += fi.Size()
		}
	}
	return n
}
