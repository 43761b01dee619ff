package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-go/mnemo/internal/enginetest/synth"
	"github.com/mnemo-go/mnemo/recall"
)

// Starter returns the command of one worker process: mnemo bench with args
// (WorkerArgs) on the database of dsn, which it passes in the environment
// ($MNEMO_DB). Scale sets its standard input and output.
type Starter func(ctx context.Context, dsn string, args []string) *exec.Cmd

// ScalePoint is one row of the throughput scaling (mnemo bench
// --processes): N engine processes against one Postgres database.
type ScalePoint struct {
	Processes int `json:"processes"`
	// Ingest: every process appends its share of the synthetic corpus
	// (threads dealt by index), then waits for the embeddings; the rate
	// counts all messages over the wall time from the common start to the
	// last process done.
	IngestMessagesPerSec float64 `json:"ingestMessagesPerSec"`
	IngestSeconds        float64 `json:"ingestSeconds"`
	AppendCall           Latency `json:"appendCall"` // every process's Append calls
	// LoadContext: every process runs Options.Queries warm LoadContext
	// calls (recall on) at once; the rate counts all calls over the wall
	// time, the latency is over all calls.
	LoadContextPerSec float64 `json:"loadContextPerSec"`
	LoadContext       Latency `json:"loadContext"`
	// DiskBytes is the schema's size after ingest.
	DiskBytes int64 `json:"diskBytes"`
}

// Scale measures, for each count of counts, ingest and LoadContext
// throughput with that many worker processes (start) on a new scratch
// schema of dsn, dropped afterwards unless keep.
func Scale(ctx context.Context, o Options, dsn string, counts []int, keep bool, start Starter, logf func(string, ...any)) ([]ScalePoint, error) {
	var out []ScalePoint
	for _, n := range counts {
		s, err := NewScratch(ctx, dsn)
		if err != nil {
			return out, err
		}
		p, err := scaleOne(ctx, o, s, n, start, logf)
		if !keep {
			err = errors.Join(err, s.Drop(context.WithoutCancel(ctx)))
		} else {
			logf("bench: schema %s kept", s.Name)
		}
		if err != nil {
			return out, err
		}
		out = append(out, p)
	}
	return out, nil
}

// scaleOne runs the ingest and load phases with n processes on s.
func scaleOne(ctx context.Context, o Options, s *Scratch, n int, start Starter, logf func(string, ...any)) (ScalePoint, error) {
	p := ScalePoint{Processes: n}
	logf("bench: %d process(es): ingesting %d messages into schema %s", n, o.Size, s.Name)
	wall, res, err := runPhase(ctx, o, s.DSN, PhaseIngest, n, start)
	if err != nil {
		return p, err
	}
	ops, lat := merge(res)
	p.IngestSeconds, p.IngestMessagesPerSec, p.AppendCall = wall, float64(ops)/wall, lat
	if p.DiskBytes, err = s.Bytes(ctx); err != nil {
		return p, err
	}
	logf("bench: %d process(es): ingest %.0f msgs/s; LoadContext ×%d per process", n, p.IngestMessagesPerSec, o.Queries)
	if wall, res, err = runPhase(ctx, o, s.DSN, PhaseLoad, n, start); err != nil {
		return p, err
	}
	ops, lat = merge(res)
	p.LoadContextPerSec, p.LoadContext = float64(ops)/wall, lat
	return p, nil
}

// merge sums the workers' operations and summarises all their latencies.
func merge(res []WorkerResult) (int, Latency) {
	ops := 0
	var ds []time.Duration
	for _, r := range res {
		ops += r.Ops
		for _, ms := range r.LatenciesMs {
			ds = append(ds, time.Duration(ms*float64(time.Millisecond)))
		}
	}
	return ops, summarize(ds)
}

// worker is one started worker process.
type worker struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// runPhase starts n workers for phase, waits until each is ready, starts
// them together and returns the wall time from the start to the last
// result, with the results.
func runPhase(ctx context.Context, o Options, dsn, phase string, n int, start Starter) (float64, []WorkerResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // a failure stops the other workers
	ws := make([]*worker, 0, n)
	defer func() {
		for _, w := range ws {
			w.in.Close()
			_ = w.cmd.Wait()
		}
	}()
	for i := range n {
		w, err := startWorker(start(ctx, dsn, WorkerArgs(o, phase, i, n)))
		if err != nil {
			return 0, nil, err
		}
		ws = append(ws, w)
	}
	for i, w := range ws {
		if line, err := w.out.ReadString('\n'); err != nil || strings.TrimSpace(line) != Ready {
			return 0, nil, fmt.Errorf("bench: worker %d of %s did not get ready (%q, %v); see its messages above", i, phase, strings.TrimSpace(line), err)
		}
	}
	t0 := time.Now()
	for _, w := range ws {
		if _, err := io.WriteString(w.in, "go\n"); err != nil {
			return 0, nil, err
		}
	}
	return collect(ws, t0)
}

// collect reads every worker's result and returns the wall time from t0 to
// the last one.
func collect(ws []*worker, t0 time.Time) (float64, []WorkerResult, error) {
	res := make([]WorkerResult, len(ws))
	errs := make([]error, len(ws))
	var last time.Time
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Go(func() {
			line, err := w.out.ReadString('\n')
			mu.Lock()
			if now := time.Now(); now.After(last) {
				last = now
			}
			mu.Unlock()
			if err != nil {
				errs[i] = fmt.Errorf("bench: worker %d ended without a result (%v); see its messages above", i, err)
				return
			}
			res[i], errs[i] = parseResult(line)
		})
	}
	wg.Wait()
	return last.Sub(t0).Seconds(), res, errors.Join(errs...)
}

// startWorker starts cmd with pipes on its standard input and output.
func startWorker(cmd *exec.Cmd) (*worker, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: start a worker: %w", err)
	}
	return &worker{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}, nil
}

// ScaleReport is the output of mnemo bench --processes.
type ScaleReport struct {
	Backend string       `json:"backend"`
	Corpus  Corpus       `json:"corpus"`
	Machine Machine      `json:"machine"`
	Queries int          `json:"queriesPerProcess"`
	Points  []ScalePoint `json:"points"`
	Notes   []string     `json:"notes"`
}

// PrintTable writes the scaling as a table, one row per process count,
// with each rate's ratio to the first row's.
func (r *ScaleReport) PrintTable(w io.Writer) {
	fmt.Fprintf(w, "mnemo bench --processes: synthetic corpus, %d messages, %d resources (seed %d); %d CPUs, %s, embedder %s, backend %s; %d LoadContext calls per process\n\n",
		r.Corpus.Messages, r.Corpus.Resources, r.Corpus.Seed, r.Machine.CPUs, r.Machine.GoVersion, r.Machine.Embedder, r.Backend, r.Queries)
	fmt.Fprintf(w, "%9s %12s %7s %10s %10s %12s %7s %9s %9s %10s\n", "processes", "ingest/s", "×", "append p50", "append p99", "LoadCtx/s", "×", "LC p50", "LC p99", "disk")
	for _, p := range r.Points {
		ri, rl := 0.0, 0.0
		if b := r.Points[0]; b.IngestMessagesPerSec > 0 && b.LoadContextPerSec > 0 {
			ri, rl = p.IngestMessagesPerSec/b.IngestMessagesPerSec, p.LoadContextPerSec/b.LoadContextPerSec
		}
		fmt.Fprintf(w, "%9d %12.0f %7.2f %10.2f %10.2f %12.1f %7.2f %9.2f %9.2f %10s\n", p.Processes, p.IngestMessagesPerSec, ri,
			p.AppendCall.P50, p.AppendCall.P99, p.LoadContextPerSec, rl, p.LoadContext.P50, p.LoadContext.P99, mib(p.DiskBytes))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\nnote: %s", n)
	}
	fmt.Fprintln(w)
}

// NewScaleReport describes a scaling run of o (its figures in Points).
func NewScaleReport(o Options, points []ScalePoint) *ScaleReport {
	r := &ScaleReport{Backend: "postgres", Machine: machine(recall.HashEmbedder{}.ID()), Queries: o.Queries, Points: points}
	res := o.Resources
	if res == 0 {
		res = max(1, o.Size/synth.DefaultMessagesPerResource)
	}
	r.Corpus = Corpus{Source: "synthetic", Messages: o.Size, Resources: res, Seed: o.Seed}
	r.Notes = append(r.Notes,
		"each row ingests into a new schema with N processes (threads dealt among them, "+fmt.Sprint(o.Writers)+" writer(s) each, batch "+fmt.Sprint(o.Batch)+"), then runs the LoadContext calls in N processes at once; rates are over the wall time from the common start to the last process done",
		"the Postgres server runs on the same machine and shares its CPUs with the engine processes")
	return r
}
