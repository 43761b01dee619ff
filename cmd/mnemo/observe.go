package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/server"
)

// observeModel builds the observer model from OPENAI_BASE_URL,
// OPENAI_API_KEY and MNEMO_MODEL, else, when MNEMO_MODEL is unset, from
// the data directory's stored configuration (stored: its observe endpoint,
// model and apiKeyEnv, as mnemo serve uses them); neither is an error
// naming both.
func (m *Main) observeModel(stored *memoryConfig) (observe.Model, error) {
	if model := m.Getenv("MNEMO_MODEL"); model != "" {
		if err := needKey("MNEMO_MODEL="+model, m.Getenv("OPENAI_BASE_URL"), m.Getenv("OPENAI_API_KEY"), "OPENAI_BASE_URL", "OPENAI_API_KEY"); err != nil {
			return nil, err
		}
		return observe.NewOpenAIModel(observe.OpenAIConfig{
			BaseURL: m.Getenv("OPENAI_BASE_URL"),
			APIKey:  m.Getenv("OPENAI_API_KEY"),
			Model:   m.Getenv("MNEMO_MODEL"),
		})
	}
	if stored != nil && stored.Observe != nil && stored.Observe.Model != "" {
		return stored.Observe.model(m.Getenv)
	}
	return nil, errors.New("MNEMO_MODEL is not set: observe calls the model it names at OPENAI_BASE_URL (default OpenAI's API) with OPENAI_API_KEY, e.g. MNEMO_MODEL=gpt-4o-mini, or a local server's model with OPENAI_BASE_URL=http://localhost:11434/v1 (or the model of mnemo.json's \"observe\" section, when the data directory has one)")
}

// ObserveCommand is `mnemo observe`: run the observer and reflector on a
// thread now (needs MNEMO_MODEL). Like every command it embeds Main: the
// process environment and the global flags.
type ObserveCommand struct{ *Main }

// Run parses the flags of `mnemo observe` from args and runs it.
func (c *ObserveCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags("observe", "--thread T")
	thread := fs.String("thread", "", "thread id (required)")
	force := fs.Bool("force", false, "observe every unobserved turn older than the recent window, and reflect, whatever the thresholds")
	threshold := fs.Int("threshold", 0, fmt.Sprintf("observer threshold in tokens (default mnemo.json's, else %d; 0 means the default)", observe.DefaultThreshold))
	reflect := fs.Int("reflect-threshold", 0, fmt.Sprintf("reflector threshold in tokens (default mnemo.json's, else %d; 0 means the default)", observe.DefaultReflectThreshold))
	// 0 is the default, as for --threshold (and context's --recent); the
	// observer has no "no window" (a negative value is refused).
	recent := fs.Int("recent", 0, fmt.Sprintf("recent window never observed, in turns (default mnemo.json's recentN, else %d; 0 means the default)", engine.DefaultRecentN))
	noReflect := fs.Bool("no-reflect", false, "skip the reflector")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := c.noArgs(fs, ""); err != nil {
		return err
	}
	if err := c.checkNeededIDs(fs, "observe needs --thread", "--thread", *thread); err != nil {
		return err // first: --thread "" is empty, not missing
	}
	if *thread == "" {
		return c.usagef(fs, "observe needs --thread")
	}
	if *threshold < 0 || *reflect < 0 {
		name, v := "--threshold", *threshold
		if *threshold >= 0 {
			name, v = "--reflect-threshold", *reflect
		}
		return c.valuef(fs, "%s must be ≥ 0 tokens (0: the default), got %d", name, v)
	}
	if *recent < 0 {
		return c.valuef(fs, "--recent must be ≥ 0 turns (0: the default, %d), got %d", engine.DefaultRecentN, *recent)
	}
	e, err := c.openObserver(ctx, *recent, *threshold, *reflect)
	if err != nil {
		return err
	}
	defer e.CloseContext(ctx)
	printed := func(*observe.Result) {}
	if !*asJSON {
		printed = c.printObserved
	}
	res, err := observeAll(ctx, e, *thread, observe.Options{Force: *force, NoReflect: *noReflect, Waiting: c.sayWaiting}, printed)
	if res == nil {
		return err
	}
	if res.ChunkCapTokens > 0 {
		fmt.Fprintln(c.Stderr, chunkCapLine(res.ChunkCapTokens))
	}
	if *asJSON {
		if perr := c.printJSON(res); perr != nil {
			return perr
		}
		return err
	}
	if r := res.Reflection; r != nil {
		fmt.Fprintf(c.Stdout, "reflected  %s  seq %d–%d  from %s\n", r.ID, r.FromSeq, r.ToSeq, count(len(r.Sources), "observation"))
	}
	p := res.Pending
	fmt.Fprintln(c.Stdout, pendingLine(p))
	for _, b := range res.Backoffs {
		fmt.Fprintln(c.Stdout, backoffLine(b))
	}
	if *force && len(res.Observations) == 0 && p.PendingTurns == 0 {
		c.sayNothingObservable(ctx, e, *thread, p.Watermark)
	}
	return err
}

// printObserved writes the observations and skips of res, one call of
// observeAll, a line each.
func (c *ObserveCommand) printObserved(res *observe.Result) {
	for _, o := range res.Observations {
		note := ""
		if o.Content == "" {
			note = "  (nothing worth keeping)"
		}
		fmt.Fprintf(c.Stdout, "observed   %s  seq %d–%d%s\n", o.ID, o.FromSeq, o.ToSeq, note)
	}
	for _, sk := range res.Skipped {
		fmt.Fprintf(c.Stdout, "skipped    seq %d–%d  (the model endpoint refused their content: not observed; sent again once, only under another observe.model)\n", sk.FromSeq, sk.ToSeq)
	}
}

// sayWaiting says on stderr that observe waits for another process
// observing the thread (Postgres): it printed nothing for as long as that
// process's model calls took.
func (c *ObserveCommand) sayWaiting(thread string) {
	fmt.Fprintf(c.Stderr, "mnemo observe: waiting for another process observing thread %s to finish (Ctrl-C stops waiting)…\n", thread)
}

// sayNothingObservable explains a forced observe that observed nothing
// while the thread has turns past the watermark: they are in the recent
// window or wait for an answer, which are never observed ("pending 0
// turns" alone left a new user guessing).
func (c *ObserveCommand) sayNothingObservable(ctx context.Context, e *engine.Engine, thread string, watermark int64) {
	th, err := e.GetThread(ctx, thread)
	if err != nil || th.LastSeq <= watermark {
		return
	}
	fmt.Fprintf(c.Stderr, "mnemo observe: nothing observed: seqs %d–%d are in the recent window (--recent, default %d) or wait for an answer, and those are never observed\n",
		watermark+1, th.LastSeq, engine.DefaultRecentN)
}

// ObservationsCommand is `mnemo observations`: list a thread's or resource's
// observations with their ranges. Like every command it embeds Main: the
// process environment and the global flags.
type ObservationsCommand struct{ *Main }

// Run parses the flags of `mnemo observations` from args and runs it.
func (c *ObservationsCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags("observations", "(--thread T | --resource R)")
	thread := fs.String("thread", "", "this thread's observations")
	resource := fs.String("resource", "", "every thread of this resource")
	all := fs.Bool("all", false, "include retired, invalidated and empty observations (ranges the observer found nothing worth keeping in)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := c.noArgs(fs, ""); err != nil {
		return err
	}
	if err := c.checkNeededIDs(fs, "observations needs exactly one of --thread and --resource", "--thread", *thread, "--resource", *resource); err != nil {
		return err // first: --thread "" is empty, not missing
	}
	if (*thread == "") == (*resource == "") {
		return c.usagef(fs, "observations needs exactly one of --thread and --resource")
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.CloseContext(ctx)
	obs, err := e.Observations(ctx, observe.Filter{ThreadID: *thread, ResourceID: *resource, All: *all})
	if err != nil {
		return err
	}
	if len(obs) == 0 {
		c.noteNoneStored(ctx, e, *thread, *resource)
	}
	if *asJSON {
		out := make([]server.Observation, len(obs))
		for i, o := range obs {
			out[i] = server.ObservationOf(o)
		}
		return c.printJSON(out)
	}
	printObservations(c.Stdout, obs)
	return nil
}

// noteNoneStored notes on standard error, for a listing that found no
// observation, that the thread or resource asked for is not stored, as
// threads and runs do (9f34f11c): `observations --resource nobody` said
// "(no observations)" alone, as for a stored one never observed.
func (c *ObservationsCommand) noteNoneStored(ctx context.Context, e *engine.Engine, thread, resource string) {
	if resource != "" && !hasThreads(ctx, e, resource) {
		fmt.Fprintf(c.Stderr, "mnemo observations: note: resource %q has no threads, so it has no observations; check the id: to list the stored resources, run: %s\n", resource, c.target().threadsCmd(""))
	}
	if thread == "" {
		return
	}
	if _, err := e.GetThread(ctx, thread); errors.Is(err, engine.ErrThreadNotFound) {
		fmt.Fprintf(c.Stderr, "mnemo observations: note: thread %q is not stored, so it has no observations; check the id: to list the stored threads, run: %s\n", thread, c.target().threadsCmd(""))
	}
}

// printObservations writes one header line per observation (id, level,
// thread, seq range, status) followed by its content, indented.
func printObservations(w io.Writer, obs []observe.Observation) {
	if len(obs) == 0 {
		fmt.Fprintln(w, "(no observations)")
		return
	}
	for _, o := range obs {
		status := "live"
		switch {
		case o.InvalidatedAt != nil:
			status = "invalidated"
		case o.RetiredAt != nil:
			status = "retired"
		case o.Content == "":
			status = "live, nothing worth keeping"
		}
		fmt.Fprintf(w, "%s  %-11s  %s  seq %d–%d  %s", o.ID, o.Level, o.ThreadID, o.FromSeq, o.ToSeq, status)
		if !o.FromTime.IsZero() {
			fmt.Fprintf(w, "  %s – %s", o.FromTime.UTC().Format("2006-01-02 15:04"), o.ToTime.UTC().Format("2006-01-02 15:04 UTC"))
		}
		if o.Untrusted {
			fmt.Fprint(w, "  untrusted")
		}
		if len(o.Sources) > 0 {
			fmt.Fprintf(w, "  sources %s", strings.Join(o.Sources, ","))
		}
		fmt.Fprintln(w)
		for _, l := range strings.Split(o.Content, "\n") {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
}

// openObserver opens the engine as every command does (an existing data
// directory or database, the chosen embedder, the stored configuration:
// mnemo.json's recentN, observe thresholds and scope) with the observer
// model (observeModel); recent, threshold and reflect override the
// configuration when not 0.
func (c *ObserveCommand) openObserver(ctx context.Context, recent, threshold, reflect int) (*engine.Engine, error) {
	t := c.target()
	if t.dir != "" {
		if err := checkNotServed(t.dir); err != nil {
			return nil, err
		}
	}
	stored, err := t.storedConfig()
	if err != nil {
		return nil, err
	}
	model, err := c.observeModel(stored)
	if err != nil {
		return nil, err
	}
	cfg, err := c.engineConfig(ctx, t, stored, false)
	if err != nil {
		return nil, err
	}
	if recent != 0 {
		cfg.RecentN = recent
	}
	cfg.Observe.Model = model
	if threshold != 0 {
		cfg.Observe.Threshold = threshold
	}
	if reflect != 0 {
		cfg.Observe.ReflectThreshold = reflect
	}
	return c.openEngine(ctx, cfg)
}

// chunkCapLine is the advice after the model said a chunk was over its
// context, which the observer's WARN line carries (the CLI logs no WARN:
// it printed only the final error, readme65 F7): chunks were cut to
// capTokens for this run; lowering observe.chunkTokens keeps that.
func chunkCapLine(capTokens int) string {
	return fmt.Sprintf("mnemo observe: the model said a chunk was over its context length; chunks were cut to %d tokens for this run: lower observe.chunkTokens to at most %d in mnemo.json, or use a model with a longer context", capTokens, capTokens)
}

// backoffLine says b, a call backing off after failures: "reflector
// backs off until 2026-12-07T04:03:00Z (3 failures in a row; --force
// tries at once): observe: …".
func backoffLine(b observe.Backoff) string {
	who := b.Call
	if b.Call == observe.BackoffModel {
		who = "every model call"
	}
	return fmt.Sprintf("%s backs off until %s (%s in a row; --force tries at once): %s",
		who, b.Until.UTC().Format(time.RFC3339), count(b.Failures, "failure"), b.Err)
}

// pendingLine says p, the observer's plan after observe ran: "watermark
// 8; pending 1 turn, 12 tokens (due: false)".
func pendingLine(p observe.Plan) string {
	return fmt.Sprintf("watermark %d; pending %s, %s (due: %v)", p.Watermark, count(p.PendingTurns, "turn"), count(p.PendingTokens, "token"), p.Due)
}
