package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"

	"github.com/mnemo-go/mnemo/cmd/mnemo/internal/bench"
)

// BenchCommand is `mnemo bench`: measure ingest, LoadContext, search, open
// time, RSS and disk on a synthetic corpus or a file. Like every command it
// embeds Main: the process environment and the global flags. The harness
// is package bench.
type BenchCommand struct{ *Main }

// benchFlags are the flags of `mnemo bench` that are not bench.Options.
type benchFlags struct {
	baseline, cpuProfile string
	keep, asJSON         bool
	processes            []int  // --processes: counts of engine processes (Postgres)
	worker               string // --worker: this process is a worker of that phase
	workerIndex          int
}

// Run parses the flags of `mnemo bench` from args and runs it.
func (c *BenchCommand) Run(ctx context.Context, args []string) error {
	fs, o, f, err := c.parse(args)
	if err != nil {
		return err
	}
	if f.worker != "" {
		return c.runWorker(ctx, fs, o, f)
	}
	if c.dirFlag {
		return c.usagef(fs, "bench does not use --dir: it writes a new data directory (--work DIR, which must not exist; a temporary one by default) or measures one an earlier run kept (--reuse DIR)")
	}
	if c.DB == "" && len(f.processes) > 0 {
		return c.usagef(fs, "--processes runs several engine processes against one Postgres database: give --db (or $MNEMO_DB)")
	}
	var base *bench.Report
	if f.baseline != "" {
		if base, err = bench.LoadBaseline(f.baseline); err != nil {
			return c.valuef(fs, "%v", err)
		}
	}
	if f.cpuProfile != "" {
		prof, err := os.Create(f.cpuProfile)
		if err != nil {
			return err
		}
		defer prof.Close()
		if err := pprof.StartCPUProfile(prof); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if c.DB != "" {
		return c.runPostgres(ctx, fs, o, f, base)
	}
	cleanup, err := c.workDir(fs, &o, f.keep)
	if err != nil {
		return err
	}
	defer cleanup()
	rep, err := bench.Run(ctx, o, c.logf)
	if err != nil {
		return err
	}
	if f.keep {
		rep.Notes = append(rep.Notes, "data directory kept: "+o.Work)
	}
	return c.print(rep, base, f)
}

// logf reports a bench's progress on standard error.
func (c *BenchCommand) logf(format string, a ...any) { fmt.Fprintf(c.Stderr, format+"\n", a...) }

// print prints rep, with its ratios to base when given.
func (c *BenchCommand) print(rep *bench.Report, base *bench.Report, f benchFlags) error {
	if base != nil {
		rep.Ratios = bench.NewRatios(rep, base, f.baseline)
	}
	if f.asJSON {
		return c.printJSON(rep)
	}
	rep.PrintTable(c.Stdout)
	return nil
}

// benchGivenFlags are checkGiven's pairs for bench's flags whose "" would
// read as left out: --file "" ran the synthetic corpus, --format "" (with
// --file) detected the format, --work "" ran in a temporary directory,
// --reuse "" ingested anew, --processes "" ran one engine, --baseline ""
// and a profile "" compared or wrote nothing (and the internal --worker
// "" ran no worker).
var benchGivenFlags = []string{
	"--file", "a FILE", "--format", "auto, jsonl, locomo or longmemeval",
	"--work", "a directory that does not exist", "--reuse", "a directory kept by --keep",
	"--baseline", "a FILE", "--processes", "process counts (1,2,4)", "--cpuprofile", "a FILE",
	"--loadprofile", "a FILE", "--allocprofile", "a FILE", "--memprofile", "a FILE", "--worker", "ingest or load",
}

// parse parses the flags of `mnemo bench` and checks their rules.
func (c *BenchCommand) parse(args []string) (*flag.FlagSet, bench.Options, benchFlags, error) {
	fs := c.flags("bench", "")
	var o bench.Options
	var f benchFlags
	size := fs.String("size", "10k", "synthetic corpus size: 10k, 100k, 1m or a number of messages")
	fs.IntVar(&o.Resources, "resources", 0, "resources of the synthetic corpus (0: one per 1,000 messages)")
	fs.StringVar(&o.File, "file", "", "benchmark an imported file (see ingest) instead of the synthetic corpus")
	fs.StringVar(&o.Format, "format", "auto", "format of --file: "+formatNames)
	fs.IntVar(&o.Batch, "batch", 10, "messages per Append during ingest")
	fs.IntVar(&o.Writers, "writers", 1, "concurrent appenders during ingest (threads are split among them)")
	fs.IntVar(&o.Queries, "queries", 300, "measured LoadContext runs, and searches per channel")
	fs.IntVar(&o.QueryResources, "query-resources", 50, "queries go to this many resources (each loaded into memory on first use; 0: all)")
	fs.IntVar(&o.Appends, "appends", 500, "single-message appends measured in the filled engine")
	fs.Uint64Var(&o.Seed, "seed", bench.DefaultSeed, "seed of the synthetic corpus and of the query choice")
	fs.StringVar(&o.Work, "work", "", "data directory for the run; must not exist (default: a temporary directory, removed afterwards)")
	fs.BoolVar(&f.keep, "keep", false, "keep the data directory")
	fs.BoolVar(&o.Sweep, "sweep", false, "after the measurements, search every resource once (memory bound and reload cost; synthetic corpus only)")
	fs.StringVar(&o.Reuse, "reuse", "", "measure a data directory kept by an earlier synthetic run (--keep) without ingesting again")
	fs.IntVar(&o.Exactness, "exactness", 100, "queries whose vector top 10 is compared with chromem-go's exact scan (the directory is opened again for it; 0: off)")
	fs.StringVar(&f.baseline, "baseline", "", "`FILE`, a report of mnemo bench --json (e.g. of --size 10k): print this run's flatness and first-use ratios against")
	fs.BoolVar(&f.asJSON, "json", false, "print the report as JSON")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file (go tool pprof)")
	procs := fs.String("processes", "", "with --db: measure ingest and LoadContext throughput with this many engine processes against one Postgres database, e.g. 1,2,4 (each count on a new schema)")
	fs.StringVar(&f.worker, "worker", "", "internal: run as a worker process of --processes (phase ingest or load)")
	fs.IntVar(&f.workerIndex, "worker-index", 0, "internal: this worker's index among --processes")
	fs.IntVar(&o.SnapshotMin, "snapshot-min", 0, "shard snapshots for resources of at least this many messages (0: the default, 256; -1: none, to measure their cost)")
	fs.StringVar(&o.LoadProfile, "loadprofile", "", "write a CPU profile of the warm LoadContext calls only to this file (go tool pprof)")
	fs.StringVar(&o.AllocProfile, "allocprofile", "", "write the allocations of the warm LoadContext calls only to this file (go tool pprof -base FILE.base FILE)")
	fs.StringVar(&o.MemProfile, "memprofile", "", "write a heap profile of the serving state (after the warm searches) to this file (go tool pprof)")
	if err := parse(fs, args); err != nil {
		return fs, o, f, err
	}
	if fs.NArg() > 0 {
		return fs, o, f, c.noArgs(fs, "")
	}
	if err := c.checkGiven(fs, benchGivenFlags...); err != nil {
		return fs, o, f, err
	}
	if !knownFormat(o.Format) {
		// Checked by the import, it failed after the run had begun (exit 1).
		return fs, o, f, c.valuef(fs, "unknown --format %q (want %s)", o.Format, formatNames)
	}
	n, err := bench.ParseSize(*size)
	if err != nil {
		return fs, o, f, c.valuef(fs, "%v", err)
	}
	o.Size = n
	if f.processes, err = parseCounts(*procs); err != nil {
		return fs, o, f, c.valuef(fs, "%v", err)
	}
	if o.Batch < 1 || o.Writers < 1 || o.Queries < 1 || o.Appends < 0 || o.Resources < 0 || o.QueryResources < 0 || o.Exactness < 0 {
		return fs, o, f, c.valuef(fs, "--batch, --writers and --queries must be positive; --appends, --resources, --query-resources and --exactness not negative")
	}
	return fs, o, f, nil
}

// workDir sets o.Work: the --reuse directory, a new temporary one (removed
// by cleanup unless keep) or --work, which must not exist.
func (c *BenchCommand) workDir(fs *flag.FlagSet, o *bench.Options, keep bool) (cleanup func(), err error) {
	cleanup = func() {}
	switch {
	case o.Reuse != "":
		if o.Work != "" || o.File != "" {
			return cleanup, c.usagef(fs, "--reuse excludes --work and --file")
		}
		o.Work = o.Reuse
	case o.Work == "":
		dir, err := os.MkdirTemp("", "mnemo-bench-")
		if err != nil {
			return cleanup, err
		}
		o.Work = filepath.Join(dir, "data")
		if !keep {
			cleanup = func() { os.RemoveAll(dir) }
		}
	default:
		if _, err := os.Stat(o.Work); err == nil {
			return cleanup, c.valuef(fs, "--work %s exists; bench needs a fresh directory", o.Work)
		}
	}
	return cleanup, nil
}
