package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/mnemo-go/mnemo/cmd/mnemo/internal/bench"
	"github.com/mnemo-go/mnemo/engine"
)

// parseCounts parses --processes: positive process counts, comma-separated
// ("" is none).
func parseCounts(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 64 {
			return nil, fmt.Errorf("--processes wants process counts from 1 to 64, comma-separated (e.g. 1,2,4), got %q", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// runPostgres is mnemo bench on the Postgres database of --db: the single
// process measurements in a new schema (dropped afterwards unless --keep),
// or, with --processes, the throughput scaling (bench.Scale), each count in
// a schema of its own.
func (c *BenchCommand) runPostgres(ctx context.Context, fs *flag.FlagSet, o bench.Options, f benchFlags, base *bench.Report) error {
	if o.Work != "" || o.Reuse != "" {
		return c.usagef(fs, "--work and --reuse name a data directory; with --db the run fills a new schema of the database (kept with --keep)")
	}
	if len(f.processes) > 0 {
		return c.runScale(ctx, fs, o, f)
	}
	s, err := bench.NewScratch(ctx, c.DB)
	if err != nil {
		return err
	}
	if !f.keep {
		defer func() {
			if err := s.Drop(context.WithoutCancel(ctx)); err != nil {
				c.logf("mnemo bench: %v", err)
			}
		}()
	}
	o.Scratch = s
	o.Store = func(cfg *engine.Config) error { return target{dsn: s.DSN}.apply(cfg) }
	exactness := o.Exactness
	o.Exactness = 0 // Postgres has no exact scan to compare HNSW with (recall.Tuning.ExactVectors is SQLite's)
	rep, err := bench.Run(ctx, o, c.logf)
	if err != nil {
		return err
	}
	if exactness > 0 {
		rep.Notes = append(rep.Notes, "exactness not measured: Postgres has no exact scan to compare its HNSW index with; mnemo eval compares recall with the SQLite backend's")
	}
	if f.keep {
		rep.Notes = append(rep.Notes, "schema kept: "+s.Name+" (search_path="+s.Name+")")
	}
	return c.print(rep, base, f)
}

// runScale runs bench.Scale with worker processes of this executable.
func (c *BenchCommand) runScale(ctx context.Context, fs *flag.FlagSet, o bench.Options, f benchFlags) error {
	if o.File != "" {
		return c.usagef(fs, "--processes measures the synthetic corpus; drop --file")
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	start := func(ctx context.Context, dsn string, args []string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, exe, append([]string{"bench"}, args...)...)
		cmd.Env = append(os.Environ(), "MNEMO_DB="+dsn)
		cmd.Stderr = c.Stderr
		return cmd
	}
	points, err := bench.Scale(ctx, o, c.DB, f.processes, f.keep, start, c.logf)
	if err != nil {
		return err
	}
	rep := bench.NewScaleReport(o, points)
	if f.asJSON {
		return c.printJSON(rep)
	}
	rep.PrintTable(c.Stdout)
	return nil
}

// runWorker is a worker process of --processes (bench.RunWorker) on the
// database of $MNEMO_DB.
func (c *BenchCommand) runWorker(ctx context.Context, fs *flag.FlagSet, o bench.Options, f benchFlags) error {
	if c.DB == "" || len(f.processes) != 1 {
		return c.usagef(fs, "--worker is run by mnemo bench --processes, with $MNEMO_DB and one --processes count")
	}
	o.Store = func(cfg *engine.Config) error { return c.target().apply(cfg) }
	return bench.RunWorker(ctx, o, f.worker, f.workerIndex, f.processes[0], c.Stdin, c.Stdout)
}
