package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest/synth"
	"github.com/mnemo-go/mnemo/recall"
)

// DefaultSeed is the default seed of the synthetic corpus and of the query
// choice.
const DefaultSeed = synth.DefaultSeed

// benchRecall are the recall options of issue 8's LoadContext target:
// scope resource, topK 5, range 1 (the recent window is 10).
var benchRecall = recall.Options{TopK: 5, MessageRange: recall.Range{Before: 1, After: 1}, Scope: recall.ScopeResource}

// benchRecentN is the recent window of the LoadContext measurement.
const benchRecentN = 10

// Options say what to measure; they are the flags of `mnemo bench`.
type Options struct {
	// Work is the data directory of the run. Without Reuse it must be new.
	Work string
	// Reuse, when set, measures Work (equal to Reuse), kept by an earlier
	// synthetic run, without ingesting.
	Reuse string
	// File, when set, is imported (in Format: auto, jsonl, locomo or
	// longmemeval) instead of the synthetic corpus.
	File, Format string
	// Size and Resources shape the synthetic corpus (Resources 0: one per
	// 1,000 messages); Seed seeds it and the choice of queries.
	Size, Resources int
	Seed            uint64
	// Batch is the messages per Append during ingest, Writers the
	// concurrent appenders (threads are split among them).
	Batch, Writers int
	// Queries is the number of measured LoadContext runs and searches per
	// channel, spread over QueryResources resources (0: all).
	Queries, QueryResources int
	// Appends is the number of single-message appends measured in the
	// filled engine.
	Appends int
	// Sweep searches every resource once after the measurements
	// (synthetic corpus only).
	Sweep bool
	// Exactness is the number of queries whose vector top 10 is compared
	// with the exact scan (0: off).
	Exactness int
	// Store, when set, sets the store of the engine's configuration (the
	// caller's choice, e.g. a Postgres database); nil means the data
	// directory Work.
	Store func(*engine.Config) error
	// Scratch, with Store, is the Postgres schema the run fills: its size
	// is the disk figure, and the Scale runs create their own.
	Scratch *Scratch
	// MemProfile, when set, is the file that receives a heap profile of
	// the serving state (go tool pprof), written after the warm searches
	// and a garbage collection, where the serving peak RSS is read.
	MemProfile string
	// LoadProfile, when set, is the file that receives a CPU profile of
	// the warm LoadContext phase only (go tool pprof): no ingest, open,
	// first use, searches or exactness in it.
	LoadProfile string
	// AllocProfile, when set, is the file that receives the allocations
	// of the warm LoadContext calls only (a heap profile's alloc_space and
	// alloc_objects, counted from the first warm call; go tool pprof
	// -sample_index=alloc_space).
	AllocProfile string
	// SnapshotMin is recall.Tuning.SnapshotMin for the run: 0 the default
	// (shard snapshots of resources from 256 messages), negative none
	// (to measure what writing them costs the ingest).
	SnapshotMin int
}

// manifest is the file in a kept data directory that records the
// synthetic corpus, for Options.Reuse.
const manifest = "bench-corpus.json"

// run is one measurement in progress.
type run struct {
	o       Options
	cfg     engine.Config
	e       *engine.Engine // reopened by the cold open and by exactness
	rep     *Report
	corpus  *synth.Corpus // nil for an imported file
	queries []query
	logf    func(string, ...any)
}

// Run runs the phases: ingest, single appends, close and cold open,
// first use of the queried resources, warm LoadContext, search per
// channel, then the sweep and exactness when asked. logf reports progress.
func Run(ctx context.Context, o Options, logf func(string, ...any)) (*Report, error) {
	cfg, err := o.engineConfig()
	if err != nil {
		return nil, err
	}
	r := &run{o: o, logf: logf, cfg: cfg}
	if r.e, err = engine.Open(ctx, r.cfg); err != nil {
		return nil, err
	}
	defer func() {
		// nil when a reopen (coldOpen, exactness) failed: the engine
		// before it is closed already.
		if r.e != nil {
			r.e.Close()
		}
	}()
	r.rep = &Report{Search: map[string]Latency{}, Backend: o.backend(), Notes: []string{}}
	r.rep.Machine = machine(recall.HashEmbedder{}.ID())
	r.rep.Notes = append(r.rep.Notes, "embedder hash-384 (always, whatever is installed, so that runs compare): lexical-level similarity, no semantics")
	if err := r.ingest(ctx); err != nil {
		return nil, err
	}
	// The queries, chosen before the timed phases.
	if r.queries, err = r.chooseQueries(ctx); err != nil {
		return nil, err
	}
	for _, phase := range []func(context.Context) error{r.appends, r.coldOpen, r.loadContexts, r.searches, r.sweep, r.exactness} {
		if err := phase(ctx); err != nil {
			return nil, err
		}
	}
	return r.rep, nil
}

// engineConfig is the engine configuration of every run: hash-384
// (always, whatever is installed, so that runs compare) on o's store.
func (o Options) engineConfig() (engine.Config, error) {
	cfg := engine.Config{Dir: o.Work, Embedder: recall.HashEmbedder{}, RecallTuning: recall.Tuning{SnapshotMin: o.SnapshotMin}}
	if o.Store != nil {
		cfg.Dir = ""
		if err := o.Store(&cfg); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// backend names the store: "postgres" with a Scratch schema, else
// "sqlite".
func (o Options) backend() string {
	if o.Scratch != nil {
		return "postgres"
	}
	return "sqlite"
}

// appends measures single-message appends into the filled engine, then
// records the disk sizes.
func (r *run) appends(ctx context.Context) error {
	rng := rand.New(rand.NewPCG(r.o.Seed, 99))
	var single []time.Duration
	for i := range r.o.Appends {
		q := r.queries[rng.IntN(len(r.queries))]
		t0 := time.Now()
		_, err := r.e.Append(ctx, engine.AppendRequest{ThreadID: q.thread, Messages: []engine.Message{{Role: engine.RoleUser, Content: fmt.Sprintf("%s, and one more thing (%d).", q.text, i)}}})
		if err != nil {
			return err
		}
		single = append(single, time.Since(t0))
	}
	r.rep.Append = summarize(single)
	if err := r.e.SyncIndexes(ctx); err != nil {
		return err
	}
	if r.o.Scratch != nil {
		n, err := r.o.Scratch.Bytes(ctx)
		r.rep.Disk.Postgres, r.rep.Disk.Total = n, n
		return err
	}
	r.rep.Disk.SQLite = fileSizes(filepath.Join(r.o.Work, engine.DatabaseFile), "", "-wal", "-shm")
	r.rep.Disk.Lexical = dirSize(filepath.Join(r.o.Work, engine.LexicalDir))
	r.rep.Disk.Total = dirSize(r.o.Work)
	return nil
}

// coldOpen closes the engine, records the ingest's peak RSS, resets it and
// times a cold Open of the filled directory.
func (r *run) coldOpen(ctx context.Context) error {
	if err := r.e.Close(); err != nil {
		return err
	}
	r.rep.PeakRSSIngest = procStatus("VmHWM")
	runtime.GC()
	debug.FreeOSMemory()
	if !resetPeakRSS() {
		r.rep.Notes = append(r.rep.Notes, "could not reset the peak RSS after ingest: the serve peak includes ingest")
	}
	t0 := time.Now()
	var err error
	if r.e, err = engine.Open(ctx, r.cfg); err != nil {
		return err
	}
	r.rep.OpenMs = float64(time.Since(t0).Microseconds()) / 1000
	r.logf("bench: open %.1f ms; %d queries over %d resources", r.rep.OpenMs, len(r.queries), r.rep.Corpus.Queried)
	return nil
}

// loadContexts measures the first use of each queried resource, then warm
// LoadContext. Every run has a new id, as an agent's turns do (the run-id
// check and the memctx insert are part of the measured path).
func (r *run) loadContexts(ctx context.Context) error {
	tag := strconv.FormatInt(time.Now().UnixNano(), 36)
	load := func(run string, q query) (*engine.Context, time.Duration, error) {
		opts := benchRecall
		t0 := time.Now()
		c, err := r.e.LoadContext(ctx, engine.LoadRequest{RunID: "bench-" + tag + "-" + run, ThreadID: q.thread, ResourceID: q.resource, Query: q.text,
			RecentN: benchRecentN, Recall: &opts})
		return c, time.Since(t0), err
	}
	var first []time.Duration
	seen := map[string]bool{}
	for i, q := range r.queries {
		if seen[q.resource] {
			continue
		}
		seen[q.resource] = true
		_, d, err := load(fmt.Sprintf("first-%d", i), q)
		if err != nil {
			return err
		}
		first = append(first, d)
	}
	r.rep.FirstUse = summarize(first)
	var warm []time.Duration
	found := 0
	stop, err := startCPUProfile(r.o.LoadProfile)
	if err != nil {
		return err
	}
	allocs, err := startAllocs(r.o.AllocProfile)
	if err != nil {
		return err
	}
	cpu0 := cpuTime()
	for i, q := range r.queries {
		c, d, err := load(strconv.Itoa(i), q)
		if err != nil {
			return err
		}
		warm = append(warm, d)
		if q.target != "" && inPrompt(c, q.target) {
			found++
		}
	}
	r.rep.LoadContextCPUMs = float64((cpuTime() - cpu0).Microseconds()) / 1000 / float64(len(r.queries))
	if r.rep.LoadContextAllocs, err = allocs(len(r.queries)); err != nil {
		return err
	}
	if err := stop(); err != nil {
		return err
	}
	r.rep.LoadContext = summarize(warm)
	if r.corpus != nil {
		r.rep.TargetRecalled = float64(found) / float64(len(r.queries))
	}
	return nil
}

// searches measures warm Search per channel, then the serving peak RSS.
func (r *run) searches(ctx context.Context) error {
	for _, mode := range []recall.Mode{recall.ModeLexical, recall.ModeVector, recall.ModeHybrid} {
		var ds []time.Duration
		for _, q := range r.queries {
			opts := benchRecall
			opts.Mode = mode
			t0 := time.Now()
			if _, err := r.e.Search(ctx, engine.SearchRequest{ResourceID: q.resource, ThreadID: q.thread, Query: q.text, Options: opts}); err != nil {
				return err
			}
			ds = append(ds, time.Since(t0))
		}
		r.rep.Search[string(mode)] = summarize(ds)
	}
	r.rep.PeakRSSServe = procStatus("VmHWM")
	return writeHeapProfile(r.o.MemProfile)
}

// writeHeapProfile writes a heap profile of the live objects to file,
// after a garbage collection; "" writes nothing.
// startCPUProfile starts a CPU profile into file (Options.LoadProfile);
// stop ends it and closes the file. An empty file name profiles nothing.
func startCPUProfile(file string) (stop func() error, err error) {
	if file == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(file)
	if err != nil {
		return nil, fmt.Errorf("--loadprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--loadprofile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

func writeHeapProfile(file string) error {
	if file == "" {
		return nil
	}
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--memprofile: %w", err)
	}
	return f.Close()
}

// sweep (Options.Sweep, synthetic corpus) searches every resource once:
// beyond recall.DefaultMaxLoaded messages the least recently searched
// resources are unloaded.
func (r *run) sweep(ctx context.Context) error {
	if !r.o.Sweep || r.corpus == nil {
		return nil
	}
	r.logf("bench: sweeping %d resources", r.corpus.Resources())
	var ds []time.Duration
	for i := range r.corpus.Resources() {
		q := r.corpus.Query(i, r.corpus.Resources())
		opts := benchRecall
		t0 := time.Now()
		if _, err := r.e.Search(ctx, engine.SearchRequest{ResourceID: q.ResourceID, Query: q.Text, Options: opts}); err != nil {
			return err
		}
		ds = append(ds, time.Since(t0))
	}
	r.rep.Sweep = summarize(ds)
	r.rep.PeakRSSSweep = procStatus("VmHWM")
	return nil
}

// exactness (Options.Exactness > 0) compares the vector index with the
// exact scan on the first Options.Exactness queries.
func (r *run) exactness(ctx context.Context) error {
	if r.o.Exactness <= 0 {
		return nil
	}
	n := min(r.o.Exactness, len(r.queries))
	r.logf("bench: exactness of the vector index over %d queries (opening the directory again with the exact scan)", n)
	x, err := measureExactness(ctx, &r.e, r.cfg, r.queries[:n])
	if err != nil {
		return err
	}
	r.rep.Exactness = &x
	return nil
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

// ParseSize parses a corpus size: 10k, 100k, 1m or a plain number.
func ParseSize(s string) (int, error) {
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
