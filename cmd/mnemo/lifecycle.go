package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mnemo-go/mnemo/engine"
)

// DefaultSweepEvery is how often `mnemo serve` runs the expiry policy
// (engine.Expire) when lifecycle.sweepEvery is not set.
const DefaultSweepEvery = time.Minute

// lifecycleConfig is engine.Lifecycle in JSON (the "lifecycle" object of
// the memory configuration):
//
//	"lifecycle": {"idleTtl": "24h", "sweepEvery": "1m",
//	  "quota": {"resourceMessages": 10000, "resourceBytes": 50000000, "storeBytes": 2000000000, "refuse": false}}
type lifecycleConfig struct {
	IdleTTL    string       `json:"idleTtl,omitempty"`    // a Go duration; default: threads never expire (an expired thread takes the working memory its runs wrote: docs/operations.md)
	SweepEvery string       `json:"sweepEvery,omitempty"` // a Go duration; default DefaultSweepEvery; "0s" turns the sweep off
	Quota      engine.Quota `json:"quota"`
}

// apply sets cfg.Lifecycle from c.
func (c *lifecycleConfig) apply(cfg *engine.Config) error {
	if c == nil {
		return nil
	}
	cfg.Lifecycle.Quota = c.Quota
	if c.IdleTTL != "" {
		d, err := time.ParseDuration(c.IdleTTL)
		if durationTooLong(c.IdleTTL) {
			return fmt.Errorf("lifecycle.idleTtl: %q %s", c.IdleTTL, durationRange)
		}
		if err != nil || d < 0 {
			return fmt.Errorf("lifecycle.idleTtl: must be a non-negative Go duration such as \"24h\", got %q", c.IdleTTL)
		}
		cfg.Lifecycle.IdleTTL = d
	}
	return nil // sweepEvery is mnemo serve's alone: checkServed
}

// checkQuota refuses a negative bound of lifecycle.quota, naming it: the
// engine reads a bound of 0 or less as none, so a -3 meant "unbounded".
func (c *lifecycleConfig) checkQuota() error {
	if c == nil {
		return nil
	}
	q := c.Quota
	for _, f := range []struct {
		name string
		v    int64
	}{{"resourceMessages", q.ResourceMessages}, {"resourceBytes", q.ResourceBytes},
		{"storeMessages", q.StoreMessages}, {"storeBytes", q.StoreBytes}} {
		if f.v < 0 {
			return fmt.Errorf("lifecycle.quota.%s must be >= 0 (0: no bound), got %d", f.name, f.v)
		}
	}
	return nil
}

// sweepEvery is the sweep interval; zero means off.
func (c *lifecycleConfig) sweepEvery() (time.Duration, error) {
	if c == nil || c.SweepEvery == "" {
		return DefaultSweepEvery, nil
	}
	d, err := time.ParseDuration(c.SweepEvery)
	if durationTooLong(c.SweepEvery) {
		return 0, fmt.Errorf("lifecycle.sweepEvery: %q %s", c.SweepEvery, durationRange)
	}
	if err != nil || d < 0 {
		return 0, fmt.Errorf("lifecycle.sweepEvery: must be a non-negative Go duration such as \"1m\", got %q", c.SweepEvery)
	}
	return d, nil
}

// startSweep runs e.Expire every interval of mc's lifecycle configuration
// (the one the engine was opened with; nil means DefaultSweepEvery) until
// the returned stop is called (stop waits for a sweep in progress; it may
// be called more than once).
func (m *Main) startSweep(ctx context.Context, e *engine.Engine, log *slog.Logger, mc *memoryConfig) func() {
	every := DefaultSweepEvery
	if mc != nil {
		every, _ = mc.Lifecycle.sweepEvery()
	}
	if every <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			res, err := e.Expire(ctx, engine.ExpireRequest{})
			if err != nil && ctx.Err() == nil {
				log.Warn("lifecycle sweep", "err", err)
			}
			if res != nil && len(res.Threads) > 0 {
				log.Info("lifecycle sweep", "expired", len(res.Threads))
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { cancel(); wg.Wait() }) }
}

// ExpireCommand is `mnemo expire`: erase threads idle for their lifetime now
// (--idle D, --resource R, --dry-run). Like every command it embeds Main: the
// process environment and the global flags.
type ExpireCommand struct{ *Main }

// Run is `mnemo expire`: it runs the expiry policy now and prints
// the threads expired (metadata only), and how many run records older
// than retention.maxAge it pruned (engine.ExpireResult.PrunedRuns).
func (c *ExpireCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags("expire", "")
	idle := fs.Duration("idle", 0, "expire every thread idle for at least this long (positive), whatever its own lifetime (operator override; default: each thread's lifetime)")
	resource := fs.String("resource", "", "only this resource's threads")
	dry := fs.Bool("dry-run", false, "list what would expire, erase nothing")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return c.noArgs(fs, "")
	}
	if err := c.checkIdle(fs, *idle); err != nil {
		return err
	}
	if err := c.checkIDs(fs, "--resource", *resource); err != nil {
		return err
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.CloseContext(ctx)
	res, err := e.Expire(ctx, engine.ExpireRequest{Idle: *idle, ResourceID: *resource, DryRun: *dry})
	if res != nil {
		if *asJSON {
			if perr := c.printJSON(res); perr != nil {
				return perr
			}
		} else {
			verb := "expired"
			if *dry {
				verb = "would expire"
			}
			for _, t := range res.Threads {
				fmt.Fprintf(c.Stdout, "%s thread %s (resource %s): idle %s, %s, %s\n",
					verb, t.ThreadID, t.ResourceID, idleText(t.Idle), count(t.Messages, "message"), count(t.Bytes, "byte"))
			}
			fmt.Fprintf(c.Stdout, "%s %s\n", count(len(res.Threads), "thread"), verb)
			if res.PrunedRuns > 0 {
				pruned := "pruned"
				if *dry {
					pruned = "would be pruned"
				}
				fmt.Fprintf(c.Stdout, "%s older than retention.maxAge %s\n", count(res.PrunedRuns, "run record"), pruned)
			}
			if len(res.Threads) == 0 && *idle == 0 && e.Bounds().Lifecycle.IdleTTL == 0 {
				fmt.Fprintln(c.Stderr, "mnemo expire: no idle lifetime is configured ("+c.lifetimeWhere()+
					"), so only threads given a lifetime of their own expire; --idle D expires every thread idle that long")
			}
		}
	}
	if err == nil {
		c.finished()
	}
	return err
}

// checkIdle refuses --idle d unless positive, as a value error naming
// it: a negative d, and 0 (engine.ExpireRequest's Idle 0 applies each
// thread's lifetime, as leaving --idle out does, so "--idle 0s" overrode
// nothing and then said "--idle D expires every thread idle that long").
func (c *ExpireCommand) checkIdle(fs *flag.FlagSet, d time.Duration) error {
	switch {
	case d < 0:
		return c.valuef(fs, "--idle must not be negative")
	case d == 0 && flagGiven(fs, "idle"):
		return c.valuef(fs, "--idle must be positive: 0 overrides nothing (leave --idle out to apply each thread's own lifetime)")
	}
	return nil
}

// lifetimeWhere says where an idle lifetime is configured: a data
// directory's mnemo.json, or on Postgres the --config of the mnemo serve
// that stored the database's bounds (there is no mnemo.json there).
func (c *ExpireCommand) lifetimeWhere() string {
	if c.target().dsn != "" {
		return "lifecycle.idleTtl of a mnemo serve --config FILE, which stores it in the database for every process"
	}
	return "lifecycle.idleTtl in " + StoredConfigFile
}

// idleText is how long a thread has been idle, as expire prints it:
// "under 1s" below a second, else the whole seconds it has been idle at
// least ("1s" for 1.9 s, "912h0m0s"). Rounded, a thread idle 0.4 s was
// "idle 0s" and one idle 0.6 s "idle 1s", which --idle 1s then did not
// find (readme57).
func idleText(d time.Duration) string {
	if d < time.Second {
		return "under 1s"
	}
	return d.Truncate(time.Second).String()
}
