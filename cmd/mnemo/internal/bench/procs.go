package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest/synth"
)

// The phases a worker process runs (mnemo bench --worker PHASE).
const (
	PhaseIngest = "ingest" // append its share of the synthetic corpus
	PhaseLoad   = "load"   // run Options.Queries LoadContext calls
)

// Ready is the line a worker writes once its engine is open and warm; it
// then waits for a line on its standard input before the timed part.
const Ready = "ready"

// WorkerResult is the JSON line a worker writes after its timed part.
type WorkerResult struct {
	Phase string `json:"phase"`
	Index int    `json:"index"`
	// Ops counts messages appended (ingest) or LoadContext calls (load).
	Ops int `json:"ops"`
	// Seconds is the worker's own time from the go line to the end.
	Seconds float64 `json:"seconds"`
	// LatenciesMs holds each Append call (ingest) or LoadContext (load).
	LatenciesMs []float64 `json:"latenciesMs"`
}

// WorkerArgs are the arguments of `mnemo bench` that make a process worker
// index of n for phase with o's corpus, batching and queries. The store
// reaches the worker through its environment ($MNEMO_DB), never its
// arguments, which other users of the machine can read.
func WorkerArgs(o Options, phase string, index, n int) []string {
	return []string{"--worker", phase, "--worker-index", strconv.Itoa(index), "--processes", strconv.Itoa(n),
		"--size", strconv.Itoa(o.Size), "--resources", strconv.Itoa(o.Resources), "--seed", strconv.FormatUint(o.Seed, 10),
		"--batch", strconv.Itoa(o.Batch), "--writers", strconv.Itoa(o.Writers),
		"--queries", strconv.Itoa(o.Queries), "--query-resources", strconv.Itoa(o.QueryResources)}
}

// RunWorker is the body of worker index of n (0 ≤ index < n): it opens the
// engine on o's store, prepares (ingest: generates the corpus; load: runs
// a few unmeasured LoadContext calls), writes Ready to out, waits for a
// line on in, runs the phase and writes its WorkerResult to out. Ingest
// appends the threads whose index is index modulo n, then waits for the
// embeddings (SyncIndexes); load runs Options.Queries calls of its own
// slice of the corpus's queries, each with a new run id.
func RunWorker(ctx context.Context, o Options, phase string, index, n int, in io.Reader, out io.Writer) error {
	if index < 0 || index >= n {
		return fmt.Errorf("bench: worker %d of %d", index, n)
	}
	cfg, err := o.engineConfig()
	if err != nil {
		return err
	}
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer e.Close()
	corpus, err := synth.New(synth.Config{Messages: o.Size, Resources: o.Resources, Seed: o.Seed})
	if err != nil {
		return err
	}
	var timed func() (int, []time.Duration, error)
	switch phase {
	case PhaseIngest:
		timed = func() (int, []time.Duration, error) { return workerIngest(ctx, e, corpus, o, index, n) }
	case PhaseLoad:
		queries := workerQueries(corpus, o, index)
		if _, err := loadEach(ctx, e, queries[:min(10, len(queries))], fmt.Sprintf("warm-%d", index)); err != nil {
			return err
		}
		timed = func() (int, []time.Duration, error) {
			ds, err := loadEach(ctx, e, queries, fmt.Sprintf("w%d", index))
			return len(ds), ds, err
		}
	default:
		return fmt.Errorf("bench: unknown worker phase %q (want %s or %s)", phase, PhaseIngest, PhaseLoad)
	}
	if err := awaitGo(in, out); err != nil {
		return err
	}
	t0 := time.Now()
	ops, ds, err := timed()
	if err != nil {
		return err
	}
	res := WorkerResult{Phase: phase, Index: index, Ops: ops, Seconds: time.Since(t0).Seconds()}
	for _, d := range ds {
		res.LatenciesMs = append(res.LatenciesMs, float64(d.Microseconds())/1000)
	}
	return json.NewEncoder(out).Encode(res)
}

// awaitGo writes Ready to out and reads one line from in.
func awaitGo(in io.Reader, out io.Writer) error {
	if _, err := fmt.Fprintln(out, Ready); err != nil {
		return err
	}
	if _, err := bufio.NewReader(in).ReadString('\n'); err != nil {
		return fmt.Errorf("bench: waiting for the start: %w", err)
	}
	return nil
}

// workerIngest appends worker index's share of the corpus (threads whose
// index is index modulo n) and waits for the embeddings; it returns the
// messages appended and each Append call's time.
func workerIngest(ctx context.Context, e *engine.Engine, corpus *synth.Corpus, o Options, index, n int) (int, []time.Duration, error) {
	msgs := 0
	for i := range corpus.Len() {
		if i%n == index {
			msgs += len(corpus.Thread(i).Messages)
		}
	}
	calls, err := ingestSynth(ctx, e, corpus, o, func(i int) bool { return i%n == index })
	if err != nil {
		return 0, nil, err
	}
	return msgs, calls, e.SyncIndexes(ctx)
}

// workerQueries are worker index's Options.Queries queries: its own slice
// of the corpus's query sequence.
func workerQueries(corpus *synth.Corpus, o Options, index int) []query {
	out := make([]query, 0, o.Queries)
	for i := range o.Queries {
		q := corpus.Query(index*o.Queries+i, o.QueryResources)
		out = append(out, query{resource: q.ResourceID, thread: q.ThreadID, text: q.Text, target: q.Target})
	}
	return out
}

// loadEach runs LoadContext for each query (recall on, as the single
// process bench does) with run ids tagged by tag, and returns each call's
// time.
func loadEach(ctx context.Context, e *engine.Engine, queries []query, tag string) ([]time.Duration, error) {
	stamp := strconv.FormatInt(time.Now().UnixNano(), 36)
	ds := make([]time.Duration, 0, len(queries))
	for i, q := range queries {
		opts := benchRecall
		t0 := time.Now()
		_, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "bench-" + stamp + "-" + tag + "-" + strconv.Itoa(i), ThreadID: q.thread, ResourceID: q.resource,
			Query: q.text, RecentN: benchRecentN, Recall: &opts})
		if err != nil {
			return ds, err
		}
		ds = append(ds, time.Since(t0))
	}
	return ds, nil
}

// parseResult reads a worker's output: the Ready line, then its result.
func parseResult(line string) (WorkerResult, error) {
	var r WorkerResult
	if err := json.Unmarshal([]byte(strings.TrimSpace(line)), &r); err != nil {
		return r, errors.New("bench: a worker's result is not JSON: " + strings.TrimSpace(line))
	}
	return r, nil
}
