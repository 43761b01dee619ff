package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/server"
)

// ReplayCommand is `mnemo replay`: rebuild a run's prompt, optionally without
// recall, observations, working memory or chosen turns. Like every command it
// embeds Main: the process environment and the global flags.
type ReplayCommand struct{ *Main }

// Run parses the flags of `mnemo replay` from args and runs it.
func (c *ReplayCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags("replay", "RUN_ID")
	var without idList
	fs.Var(&without, "without", "what to leave out: recalled, observations, working-memory, or THREAD:SEQ,... (comma-separated, may be mixed; repeatable; each part once)")
	asJSON := fs.Bool("json", false, "print the original and counterfactual contexts as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return c.usagef(fs, "replay needs one RUN_ID")
	}
	if err := c.checkIDs(fs, "RUN_ID", fs.Arg(0)); err != nil {
		return err
	}
	if err := c.checkGiven(fs, "--without", "what to leave out"); err != nil {
		return err
	}
	opt, err := parseWithout(without.String())
	if err != nil {
		return c.valuef(fs, "%v", err)
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.CloseContext(ctx)
	r, err := e.Replay(ctx, fs.Arg(0), opt)
	var rt *engine.ReplayTooLargeError
	if errors.As(err, &rt) {
		return fmt.Errorf("run %s cannot be replayed: its turns pass %d bytes (limits.maxAnswerBytes in mnemo.json); a larger limits.maxAnswerBytes replays it", rt.RunID, rt.Limit)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(server.ReplayOf(r))
	}
	printReplay(c.Stdout, r, len(without) > 0)
	return nil
}

// parseWithout reads --without: the names of parts (recalled,
// observations, working-memory, also spelled workingMemory, as the
// inspector's ?without= takes them: engine.ReplayOptions.LeaveOut) and
// THREAD:SEQ pairs (the seq is after the last colon, since thread ids may
// hold colons). Every --without given is in s, joined by commas.
// Errors name --without: a value that is neither, a seq that is not
// decimal digits (t1:+1, t1:0x1), and a part or turn named twice (a part
// in either spelling, as the inspector's ?without= refuses it; t1:1 and
// t1:01 are one turn). --without
// is repeatable: it kept only its last value, so "--without recalled
// --without observations" left the recalled turns in.
func parseWithout(s string) (engine.ReplayOptions, error) {
	var opt engine.ReplayOptions
	var names []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if name, ok := opt.LeaveOut(part); ok {
			if slices.Contains(names, name) {
				return opt, fmt.Errorf("--without: %q given twice: give each part once", name)
			}
			names = append(names, name)
			continue // a part's name (engine.ReplayOptions.LeaveOut)
		}
		if part == "" {
			continue
		}
		i := strings.LastIndexByte(part, ':')
		if i <= 0 {
			return opt, fmt.Errorf("--without: %q is not recalled, observations, working-memory or THREAD:SEQ", part)
		}
		digits := part[i+1:]
		seq, err := strconv.ParseInt(digits, 10, 64)
		if err != nil || seq < 1 || strings.TrimLeft(digits, "0123456789") != "" {
			return opt, fmt.Errorf("--without: %q: the seq after the last colon must be a whole number >= 1", part)
		}
		if !engine.ValidID(part[:i]) {
			// A thread no run can have: said, rather than "the removals
			// asked match nothing".
			return opt, fmt.Errorf("--without: %q: the thread %s; got %s", part, engine.IDRule, engine.IDFault(part[:i]))
		}
		turn := engine.TurnRef{ThreadID: part[:i], Seq: seq}
		if slices.Contains(opt.WithoutTurns, turn) {
			return opt, fmt.Errorf("--without: %s:%d given twice: give each turn once", turn.ThreadID, turn.Seq)
		}
		opt.WithoutTurns = append(opt.WithoutTurns, turn)
	}
	return opt, nil
}

// printReplay shows the original prompt, the counterfactual one and what
// was removed.
func printReplay(w io.Writer, r *engine.Replay, asked bool) {
	fmt.Fprintf(w, "run %s: replay reproduced the recorded prompt (%s)\n\n", r.RunID, r.Original.PromptHash)
	fmt.Fprintf(w, "══ original prompt ══\n")
	printPrompt(w, r.Original)
	if len(r.Removed) == 0 && len(r.RemovedObservations) == 0 && !r.RemovedWorkingMemory {
		if asked {
			fmt.Fprintf(w, "\n(the removals asked match nothing in this run: the counterfactual prompt is the original)\n")
		} else {
			fmt.Fprintf(w, "\n(no removals asked: the counterfactual prompt is the original)\n")
		}
		return
	}
	fmt.Fprintf(w, "\n══ counterfactual prompt (%s) ══\n", r.Counterfactual.PromptHash)
	printPrompt(w, r.Counterfactual)
	fmt.Fprintf(w, "\n══ removed ══\n")
	for _, x := range r.Removed {
		reason := x.Reason
		if reason == "" {
			reason = "recent"
		}
		fmt.Fprintf(w, "  %-6s %s #%d %s  %s\n", reason, x.ThreadID, x.Seq, x.Role, promptPreview(x))
	}
	for _, o := range r.RemovedObservations {
		fmt.Fprintf(w, "  observation %s (%s #%d–%d)\n", o.ID, o.ThreadID, o.FromSeq, o.ToSeq)
	}
	if r.RemovedWorkingMemory {
		fmt.Fprintf(w, "  working memory\n")
	}
}

func printPrompt(w io.Writer, c *engine.Context) {
	if c.System != "" {
		fmt.Fprintf(w, "[system] %s\n", oneLine(c.System, 200))
	}
	for _, msg := range c.Messages {
		printMessage(w, msg, 140)
	}
}
