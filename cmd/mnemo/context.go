package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/inspector"
	"github.com/mnemo-go/mnemo/internal/render"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/server"
)

// ContextCommand is `mnemo context`: load the memory part of a prompt and
// write its memctx record. Like every command it embeds Main: the process
// environment and the global flags.
type ContextCommand struct{ *Main }

// Run parses the flags of `mnemo context` from args and runs it: the
// flags made a load request (parseArgs), the context loaded and recorded
// (loadError says a refusal), then printed.
func (c *ContextCommand) Run(ctx context.Context, args []string) error {
	req, asJSON, err := c.parseArgs(args)
	if err != nil {
		return err
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.CloseContext(ctx)
	lc, err := e.LoadContext(ctx, req)
	if err != nil {
		return c.loadError(err, req.ThreadID)
	}
	if req.Query != "" && lc.MemCtx.Options.TopK == 0 {
		fmt.Fprintf(c.Stderr, "mnemo context: recall is off (no recall flag, and the data directory configures no recall): --query was recorded but nothing was recalled; give --top-k K (or another recall flag) to recall\n")
	}
	catchUpHint(c.Stderr, "context", c.target(), lc.MemCtx.Retrieval.Lexical, lc.MemCtx.Retrieval.Vector)
	if asJSON {
		out := server.ContextOf(lc)
		out.Notice = server.RecallOffNotice(req.Query, lc.MemCtx, "give --top-k K (or another recall flag)")
		return c.printJSON(out)
	}
	printContext(c.Stdout, lc)
	return nil
}

// parseArgs parses the flags of `mnemo context` from args into the load
// request they ask (a stored thread required; Recall nil without a recall
// flag: the configured recall, else off) and --json: a usage or value
// error naming the flag at fault.
func (c *ContextCommand) parseArgs(args []string) (req engine.LoadRequest, asJSON bool, err error) {
	fs := c.flags("context", "--thread T")
	thread := fs.String("thread", "", "thread id (required)")
	resource := fs.String("resource", "", "resource id (optional; must match the thread's)")
	query := fs.String("query", "", "recall query (default: the newest user message)")
	runID := fs.String("run-id", "", "run id (default: a new ULID)")
	recent := fs.Int("recent", 0, fmt.Sprintf("recent window size (default %d; negative turns it off)", engine.DefaultRecentN))
	budget := fs.Int("budget", 0, "token budget for recalled turns (0: none)")
	replace := fs.Bool("replace", false, "replace the memctx record of --run-id when that run id was used before (needs --run-id)")
	jsonFlag := fs.Bool("json", false, "print {system, messages, tools, memctx} as JSON")
	rf := addRecallFlags(fs, fmt.Sprintf("recall hits before range expansion (0: the default, %d). Any recall flag (--top-k, --range, --scope, --threshold, --filter, --mode, --fusion) turns recall on, as a \"recall\" object does in POST /v1/context; without one, recall is the data directory's configured recall (mnemo.json), else off", recall.DefaultTopK))
	if err := parse(fs, args); err != nil {
		return req, false, err
	}
	if err := c.checkArgs(fs, *thread, *resource, *runID, *budget, *replace); err != nil {
		return req, false, err
	}
	opts, err := rf.options()
	if err != nil {
		return req, false, c.valuef(fs, "%v", err)
	}
	if !rf.given(fs) {
		opts = nil // the configured recall, else off
		// A configured recall embeds the query with the directory's
		// recorded embedder, which the open settles.
		c.embedsNone = true
	}
	at, err := rf.queryTime()
	if err != nil {
		return req, false, c.valuef(fs, "%v", err)
	}
	return engine.LoadRequest{
		RunID: *runID, ThreadID: *thread, ResourceID: *resource, Query: *query,
		RecentN: *recent, Recall: opts, TokenBudget: *budget, ReplaceRun: *replace, At: at,
		RequireThread: true, // inspecting: an unknown thread is an error, not a new conversation
	}, *jsonFlag, nil
}

// checkArgs checks the flags of `mnemo context` parsed into fs: no
// argument (a query goes in --query), a --thread, ids that are ids, a
// --budget not negative, --replace only with --run-id.
func (c *ContextCommand) checkArgs(fs *flag.FlagSet, thread, resource, runID string, budget int, replace bool) error {
	if err := c.noArgs(fs, "a query goes in --query"); err != nil {
		return err
	}
	if err := c.checkNeededIDs(fs, "context needs --thread", "--thread", thread); err != nil {
		return err // first: --thread "" is empty, not missing
	}
	if err := c.checkIDs(fs, "--resource", resource, "--run-id", runID); err != nil {
		return err
	}
	if err := c.checkGiven(fs, "--query", "a query (left out, the query is the newest user message)"); err != nil {
		return err
	}
	if err := c.checkGiven(fs, givenRecallFlags...); err != nil {
		return err
	}
	switch {
	case thread == "":
		return c.usagef(fs, "context needs --thread")
	case budget < 0:
		return c.valuef(fs, "--budget must be >= 0")
	case replace && runID == "":
		return c.usagef(fs, "--replace needs --run-id: it records this run over the run of that id (without --run-id every run gets a new id, and nothing is replaced)")
	}
	return nil
}

// loadError is the error of a LoadContext of thread that failed with err:
// a run id used before says --replace; a thread not stored says that
// mnemo context, unlike the API, starts no conversation, and how to list
// the stored ones; a flag's value the engine refused names the flag
// (answerFlagError).
func (c *ContextCommand) loadError(err error, thread string) error {
	if errors.Is(err, journal.ErrRunExists) {
		return fmt.Errorf("%w; pass --replace to record this run over it, or leave --run-id out for a new id", err)
	}
	if errors.Is(err, engine.ErrThreadNotFound) {
		// The API and MCP start a new conversation on such a thread:
		// that this one does not is by design (readme51 F9).
		return fmt.Errorf("%w; mnemo context loads only a stored thread (POST /v1/context and MCP's memory_context start a new conversation instead), and mnemo ingest stores a thread's first turns; to list the stored threads, run: %s", err, c.target().threadsCmd(""))
	}
	return answerFlagError(err, thread)
}

// printContext writes a context and its memctx record for a person.
func printContext(w io.Writer, c *engine.Context) {
	fmt.Fprintf(w, "── system (memory part) ──\n")
	if c.System == "" {
		fmt.Fprintf(w, "(empty)\n")
	} else {
		fmt.Fprintln(w, c.System)
	}
	fmt.Fprintf(w, "\n── messages (%d) ──\n", len(c.Messages))
	for _, msg := range c.Messages {
		printMessage(w, msg, 160)
	}
	if len(c.Tools) > 0 {
		var names []string
		for _, t := range c.Tools {
			if t.Function != nil {
				names = append(names, t.Function.Name)
			}
		}
		fmt.Fprintf(w, "\n── tools ──\n%s\n", strings.Join(names, ", "))
	}
	fmt.Fprintf(w, "\n── memctx ──\n")
	printMemCtx(w, c.MemCtx)
}

// printMessage writes one context message on one line: its provenance tag
// (recent, hit, range or repair), thread, seq, role and speaker, then up to
// width characters of its content and tool calls.
func printMessage(w io.Writer, msg engine.ContextMessage, width int) {
	tag := "recent"
	if msg.Reason != "" {
		tag = msg.Reason
	}
	who := msg.Role
	if msg.Name != "" {
		who += " " + msg.Name
	}
	text := msg.Content
	for _, tc := range msg.ToolCalls {
		text = strings.TrimSpace(text + " → " + tc.Name + "(" + engine.OpenAIArguments(tc.Arguments) + ")")
	}
	fmt.Fprintf(w, "[%-6s] %s #%d %s: %s\n", tag, msg.ThreadID, msg.Seq, who, oneLine(text, width))
}

// printMemCtx writes a memctx record for a person: in hybrid mode the
// fusion and the hybrid rules it ran with, in every mode of recall the
// channel tuning, and, when a recalled turn shows a score, a "scores:"
// legend says what the scores shown are, by the fusion, rules and
// turn-context rule the record names (not known in a record written
// before they were recorded). Its parts: the run and how it recalled
// (printMemCtxRun), the recalled turns, the recent, dropped and unsettled
// ones (printMemCtxTurns), then what else the prompt held
// (printMemCtxRest).
func printMemCtx(w io.Writer, r *journal.MemCtx) {
	printMemCtxRun(w, r)
	printLegend(w, memctxScores(r).legend(recalledScores(r.Recalled))...)
	fmt.Fprintf(w, "recalled %d:\n", len(r.Recalled))
	for _, x := range r.Recalled {
		fmt.Fprintf(w, "  %-6s %s #%d %s%s  %s\n", x.Reason, x.ThreadID, x.Seq, x.Role, recalledScore(x), promptPreview(x))
	}
	printMemCtxTurns(w, r)
	printMemCtxRest(w, r)
}

// printMemCtxRun writes the run of r, its query, the options and channels
// it recalled with, and how each channel retrieved.
func printMemCtxRun(w io.Writer, r *journal.MemCtx) {
	fmt.Fprintf(w, "run %s · thread %s · resource %s · %s\n", r.RunID, r.ThreadID, r.ResourceID, r.CreatedAt)
	if r.Query != "" {
		fmt.Fprintf(w, "query: %s\n", oneLine(r.Query, 160))
	}
	if r.QueryAt != "" && r.QueryAt != r.CreatedAt {
		fmt.Fprintf(w, "asked at: %s\n", r.QueryAt)
	}
	o := r.Options
	fmt.Fprintf(w, "options: recentN %d · topK %d · threshold %g · range %s · scope %s · mode %s\n",
		o.RecentN, o.TopK, o.Threshold, orDash(string(o.MessageRange)), orDash(o.Scope), orDash(o.Mode))
	if o.Fusion != "" {
		fmt.Fprintf(w, "fusion: %s\n", fusionText(o))
	}
	if o.Rules != nil || o.Mode == string(recall.ModeHybrid) {
		fmt.Fprintf(w, "rules: %s\n", recordRulesText(o))
	}
	if o.Channels != nil || o.Mode != "" {
		fmt.Fprintf(w, "channels: %s\n", recordChannelsText(o))
	}
	if len(o.Filter) > 0 {
		fmt.Fprintf(w, "filter: %s\n", o.Filter)
	}
	fmt.Fprintf(w, "retrieval: lexical %s · vector %s", r.Retrieval.Lexical, r.Retrieval.Vector)
	if r.Retrieval.Embedder != "" {
		fmt.Fprintf(w, " · embedder %s", r.Retrieval.Embedder)
	}
	if r.Retrieval.Note != "" {
		fmt.Fprintf(w, " · %s", r.Retrieval.Note)
	}
	fmt.Fprintln(w)
}

// recalledScore is a recalled turn's score as printMemCtx shows it after
// its role: " score S (lexical L, vector V)", either channel's left out
// when it did not score the turn; "" when the record has no score.
func recalledScore(x journal.Ref) string {
	if x.Score == nil {
		return ""
	}
	score := fmt.Sprintf(" score %.4f", *x.Score)
	if x.Lexical != nil {
		score += fmt.Sprintf(" (lexical %.4f", *x.Lexical)
		if x.Vector != nil {
			score += fmt.Sprintf(", vector %.4f", *x.Vector)
		}
		score += ")"
	} else if x.Vector != nil {
		score += fmt.Sprintf(" (vector %.4f)", *x.Vector)
	}
	return score
}

// printMemCtxTurns writes the turns of r's recent window, those left out
// (dropped) and the calls given a synthetic result (unsettled).
func printMemCtxTurns(w io.Writer, r *journal.MemCtx) {
	// The recent window: its turns are counted, and the record lists at
	// most journal.RecentCap of them (the oldest first).
	if r.RecentCount == len(r.Recent) {
		fmt.Fprintf(w, "recent %d:\n", r.RecentCount)
	} else {
		fmt.Fprintf(w, "recent %d (%d listed: a record lists at most %d of the window's turns):\n", r.RecentCount, len(r.Recent), journal.RecentCap)
	}
	for _, x := range r.Recent {
		fmt.Fprintf(w, "         %s #%d %s  %s\n", x.ThreadID, x.Seq, x.Role, promptPreview(x))
	}
	if r.DroppedCount == len(r.Dropped) {
		fmt.Fprintf(w, "dropped %d:\n", r.DroppedCount)
	} else { // turns left out as unobserved are listed up to journal.RecentCap
		fmt.Fprintf(w, "dropped %d (%d listed: a record lists at most %d of the turns left out as unobserved):\n", r.DroppedCount, len(r.Dropped), journal.RecentCap)
	}
	for _, x := range r.Dropped {
		fmt.Fprintf(w, "  %s: %s #%d %s  %s\n", x.Reason, x.ThreadID, x.Seq, x.Role, promptPreview(x))
	}
	if len(r.Unsettled) > 0 { // the calls given a synthetic "Outcome unknown" result
		fmt.Fprintf(w, "unsettled %d:\n", len(r.Unsettled))
	}
	for _, x := range r.Unsettled {
		fmt.Fprintf(w, "  %s: %s #%d %s call %s  %s\n", x.Reason, x.ThreadID, x.Seq, x.Role, x.ToolCallID, promptPreview(x))
	}
}

// promptPreview is x's preview as the prompt gives a message's text:
// marker-shaped text quoted as render.Message quotes it ("[recalled ·
// thread …" reads "[quoted: recalled · thread …", as the model got it and
// as the messages `mnemo context` prints above give it; the characters
// the prompt escapes are termSafe's to write, as the prompt writes them,
// "\u202e"); a dropped turn's as the prompt would have given it. The
// record keeps the preview as stored (memctx --json prints it so);
// printed so, the turns of the prompt showed a marker the prompt had
// quoted (readme73 F3).
func promptPreview(x journal.Ref) string { return render.Quote(x.Preview) }

// printMemCtxRest writes the observations and working memory r's prompt
// held, its estimated tokens and its hash.
func printMemCtxRest(w io.Writer, r *journal.MemCtx) {
	fmt.Fprintf(w, "observations %d:", r.ObservationCount)
	for _, x := range r.Observations {
		fmt.Fprintf(w, " %s[%s #%d–%d]", x.ID, x.ThreadID, x.FromSeq, x.ToSeq)
	}
	if v := r.WorkingMemoryVersion; v != nil {
		fmt.Fprintf(w, "\nworking memory: v%d of %s, %d chars\n", *v, r.WorkingMemoryKey(), r.WorkingMemoryChars)
	} else {
		fmt.Fprintf(w, "\nworking memory: %d chars\n", r.WorkingMemoryChars)
	}
	if t := r.Tokens; t != nil {
		fmt.Fprintf(w, "tokens (estimated): recent %d, recalled %d, observations %d, working memory %d, tools %d, total %d\n",
			t.Recent, t.Recalled, t.Observations, t.WorkingMemory, t.Tools, t.Total)
	}
	fmt.Fprintf(w, "promptHash: %s\n", r.PromptHash)
}

// recalledScores is what printMemCtx shows of the recalled turns x's
// scores: a turn's lexical and vector scores are shown beside its score,
// a missing one left out (no "-"). The turns the budget dropped show none.
func recalledScores(x []journal.Ref) shownScores {
	var sh shownScores
	for _, r := range x {
		if r.Score != nil {
			sh.score = true
			sh.lexical = sh.lexical || r.Lexical != nil
			sh.vector = sh.vector || r.Vector != nil
		}
	}
	return sh
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// MemCtxCommand is `mnemo memctx`: print a run's memctx record. Like every
// command it embeds Main: the process environment and the global flags.
type MemCtxCommand struct{ *Main }

// Run parses the flags of `mnemo memctx` from args and runs it.
func (c *MemCtxCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags("memctx", "RUN_ID")
	asJSON := fs.Bool("json", false, "print the stored record as JSON")
	htmlFile := fs.String("html", "", "write the run as one self-contained web page (the inspector's run view: timeline and replay) to FILE")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return c.usagef(fs, "memctx needs one RUN_ID")
	}
	if *asJSON && *htmlFile != "" {
		return c.usagef(fs, "give --json or --html FILE, not both")
	}
	if err := c.checkGiven(fs, "--html", "a FILE"); err != nil {
		return err
	}
	if err := c.checkIDs(fs, "RUN_ID", fs.Arg(0)); err != nil {
		return err
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.CloseContext(ctx)
	if *htmlFile != "" {
		return c.writeRunHTML(ctx, e, fs.Arg(0), *htmlFile)
	}
	if *asJSON {
		b, err := e.Journal().RawMemCtx(ctx, fs.Arg(0))
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(c.Stdout, "%s\n", b)
		return err
	}
	r, err := e.Journal().MemCtx(ctx, fs.Arg(0))
	if err != nil {
		return err
	}
	printMemCtx(c.Stdout, r)
	return nil
}

// writeRunHTML writes the inspector's run page of runID to path.
func (c *MemCtxCommand) writeRunHTML(ctx context.Context, e *engine.Engine, runID, path string) error {
	var b bytes.Buffer
	// The record first, read as memctx without --html reads it: a
	// missing run is the same error, journal.ErrNotFound (`run not
	// found: "ID"`), and no page is built.
	if _, err := e.Journal().MemCtx(ctx, runID); err != nil {
		return err
	}
	if err := inspector.WriteRun(ctx, &b, e, runID, version()); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		return err
	}
	fmt.Fprintf(c.Stderr, "mnemo memctx: wrote %s (%d bytes)\n", path, b.Len())
	return nil
}
