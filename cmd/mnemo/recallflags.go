package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// recallFlags are the recall flags shared by context and search.
type recallFlags struct {
	topK      int
	rng       string
	scope     string
	threshold float64
	filter    string
	mode      string
	fusion    string
	at        string
}

// addRecallFlags defines the recall flags on fs with --top-k's help.
func addRecallFlags(fs *flag.FlagSet, topKHelp string) *recallFlags {
	f := &recallFlags{}
	fs.IntVar(&f.topK, "top-k", 0, topKHelp)
	fs.StringVar(&f.rng, "range", "0", `message range around each hit: N, or BEFORE,AFTER`)
	fs.StringVar(&f.scope, "scope", "resource", "recall scope: thread or resource")
	fs.Float64Var(&f.threshold, "threshold", 0, "minimum cosine similarity on the vector channel (0: none)")
	fs.StringVar(&f.filter, "filter", "", `JSON filter applied before topK, e.g. '{"role":"user"}'`)
	fs.StringVar(&f.mode, "mode", "hybrid", "lexical, vector or hybrid")
	fs.StringVar(&f.fusion, "fusion", "", fusionHelp)
	fs.StringVar(&f.at, "at", "", `when the question is asked, RFC 3339 (e.g. 2023-05-08T14:00:00Z): its relative dates ("yesterday", "last week") are resolved against it (default: now)`)
	return f
}

// fusionHelp is the help of --fusion, shared by the commands that take it
// (search, context, eval): it names both fusions and the default.
var fusionHelp = fmt.Sprintf("fusion of the channels in hybrid mode, before mnemo's hybrid rules (exchange order, session evidence, speaker and date boosts): %s (standardised channel scores; a hit's score may be negative) or %s (reciprocal rank fusion) (default %s)", recall.FusionWeighted, recall.FusionRRF, recall.DefaultFusion)

// givenRecallFlags are checkGiven's pairs for the recall flags whose ""
// would read as left out: --filter "" recalled unfiltered, --fusion ""
// with the default fusion, --at "" at now, --scope "" and --mode "" with
// the defaults.
var givenRecallFlags = []string{
	"--filter", `a JSON filter ('{"role":"user"}')`,
	"--fusion", recall.FusionWeighted + " or " + recall.FusionRRF,
	"--at", "an RFC 3339 time (left out, now)",
	"--scope", "thread or resource", "--mode", "lexical, vector or hybrid",
}

// queryTime returns --at (zero when not given: the engine's clock).
func (f *recallFlags) queryTime() (time.Time, error) {
	if f.at == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, f.at)
	if err != nil {
		return time.Time{}, fmt.Errorf("--at is not an RFC 3339 time (2023-05-08T14:00:00Z): %s", f.at)
	}
	if t.IsZero() {
		return time.Time{}, fmt.Errorf("--at %s is the zero time, which is no time anyone meant: leave --at out for now", f.at)
	}
	return t, nil
}

// options returns the recall options the flags give (TopK 0 means
// recall.DefaultTopK). The flags are checked even when the command then
// leaves recall off, so a bad value is never silently ignored.
func (f *recallFlags) options() (*recall.Options, error) {
	r, err := parseRange(f.rng)
	if err != nil {
		return nil, err
	}
	o := &recall.Options{
		TopK: f.topK, Threshold: f.threshold, Scope: recall.Scope(f.scope), MessageRange: r,
		Mode: recall.Mode(f.mode), Fusion: f.fusion,
	}
	if f.filter != "" {
		if !json.Valid([]byte(f.filter)) {
			return nil, fmt.Errorf("--filter is not valid JSON: %s", f.filter)
		}
		o.Filter = json.RawMessage(f.filter)
	}
	if err := o.Validate(); err != nil {
		return nil, flagError(err)
	}
	return o, nil
}

// recallFlagNames are the flags addRecallFlags defines that set a recall
// option (--at is when the question is asked, not an option).
var recallFlagNames = map[string]bool{"top-k": true, "range": true, "scope": true, "threshold": true, "filter": true, "mode": true, "fusion": true}

// given reports whether fs's command line set a recall flag: mnemo
// context then turns recall on, as a "recall" object does in POST
// /v1/context.
func (f *recallFlags) given(fs *flag.FlagSet) bool {
	set := false
	fs.Visit(func(fl *flag.Flag) { set = set || recallFlagNames[fl.Name] })
	return set
}

// flagGiven reports whether the command line set the flag name.
func flagGiven(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	return set
}

// optionFlags maps recall.Options' fields (as recall's errors name them)
// to the flags that set them.
var optionFlags = map[string]string{
	"topK": "--top-k", "threshold": "--threshold", "messageRange": "--range",
	"scope": "--scope", "mode": "--mode", "fusion": "--fusion",
}

// flagError words an error of recall.Options.Validate for the command
// line: the flag that set the option ("--top-k must be within [0, 1000],
// got 5000") instead of the option's API field (topK).
func flagError(err error) error {
	var oe *recall.OptionError
	if errors.As(err, &oe) && optionFlags[oe.Field] != "" {
		return fmt.Errorf("%s %s", optionFlags[oe.Field], oe.Rule)
	}
	if errors.Is(err, recall.ErrInvalidFilter) {
		return fmt.Errorf("--filter: %s", strings.TrimPrefix(err.Error(), "recall: "))
	}
	return err
}

// answerFields maps the request fields an *engine.AnswerTooLargeError
// names to the flags that set them.
var answerFields = map[string]string{"recall.topK": "--top-k", "recall.messageRange": "--range", "recentN": "--recent"}

// answerFlagError words an *engine.AnswerTooLargeError for the command
// line: the flags to lower and the setting that bounds it ("the answer's
// messages pass 16777216 bytes (limits.maxAnswerBytes in mnemo.json);
// lower --top-k, --range or --recent"), not the API's field names; when
// the recent window of thread held the messages the observer has not
// distilled yet (which --recent does not shrink), `mnemo observe` and
// observe.maxUnobservedTokens; for a pending turn over the bound, that
// nothing of the command shrinks it. Other errors are returned as they
// are.
func answerFlagError(err error, thread string) error {
	var at *engine.AnswerTooLargeError
	if !errors.As(err, &at) {
		return err
	}
	flags := make([]string, 0, len(at.Fields))
	for _, f := range at.Fields {
		flags = append(flags, cmp.Or(answerFields[f], f))
	}
	list := ""
	if n := len(flags); n > 0 {
		list = flags[n-1]
		if n > 1 {
			list = strings.Join(flags[:n-1], ", ") + " or " + list
		}
	}
	observeCmd := "mnemo observe --thread " + thread
	behind := "the observer is behind"
	switch {
	case at.ObserveDue:
	case at.Observable > 0:
		// mnemo observe without --force would observe nothing.
		observeCmd += " --force"
		behind = "the observer waits until they reach observe.threshold tokens"
	default:
		// Nor with --force: its recent window holds them all.
		observeCmd += " --force --recent N (N below the observer's recent window)"
		behind = "the observer never observes its recent window, and it holds them all"
	}
	switch {
	case at.Pending > 0:
		return fmt.Errorf("the thread's pending turn (%d messages no assistant answer follows yet, which the recent window always holds) passes %d bytes (limits.maxAnswerBytes in mnemo.json); no flag shrinks it: append the answer, or raise limits.maxAnswerBytes",
			at.Pending, at.Limit)
	case at.Unobserved > 0 && list == "":
		return fmt.Errorf("the recent window passes %d bytes (limits.maxAnswerBytes in mnemo.json): it holds the %d messages of the thread the observer has not distilled yet, whatever --recent; %s: run %s, or lower observe.maxUnobservedTokens in mnemo.json",
			at.Limit, at.Unobserved, behind, observeCmd)
	case at.Unobserved > 0:
		return fmt.Errorf("the answer's messages pass %d bytes (limits.maxAnswerBytes in mnemo.json); lower %s, or run %s (the recent window holds the %d messages of the thread the observer has not distilled yet, whatever --recent)",
			at.Limit, list, observeCmd, at.Unobserved)
	}
	return fmt.Errorf("the answer's messages pass %d bytes (limits.maxAnswerBytes in mnemo.json); lower %s", at.Limit, list)
}

// parseRange reads "N" or "BEFORE,AFTER", each a whole number as every
// whole-number flag takes one (decimalValue: decimal digits only, no
// space): `--range 010` is "--range must be a whole number written
// without leading zeros: 10, not 010", as --top-k's; it took 010, +3,
// ' 2' and '1, 2' (strconv.Atoi after strings.TrimSpace).
func parseRange(s string) (recall.Range, error) {
	parts := []string{s}
	if before, after, two := strings.Cut(s, ","); two {
		parts = []string{before, after}
	}
	n := make([]int, len(parts))
	written := make([]string, len(parts)) // as mnemo writes them
	how := ""
	for i, p := range parts {
		switch {
		case decimalDigits.MatchString(p):
			v, err := strconv.Atoi(p)
			if err != nil {
				return recall.Range{}, fmt.Errorf("--range: %s is out of range", shellWord(s))
			}
			n[i], written[i] = v, p
		case signedDigits.MatchString(p):
			if h := notDecimal(p); how != "" && how != h {
				how = "a sign or leading zeros"
			} else {
				how = h
			}
			written[i] = decimalOf(p)
		default:
			return recall.Range{}, fmt.Errorf("--range must be N or BEFORE,AFTER with whole numbers >= 0, got %q", s)
		}
	}
	switch {
	case how != "" && len(parts) == 1:
		return recall.Range{}, fmt.Errorf("--range must be a whole number written without %s: %s, not %s", how, written[0], s)
	case how != "":
		return recall.Range{}, fmt.Errorf("--range must be BEFORE,AFTER with whole numbers written without %s: %s, not %s", how, strings.Join(written, ","), s)
	case slices.Min(n) < 0:
		return recall.Range{}, fmt.Errorf("--range must be N or BEFORE,AFTER with whole numbers >= 0, got %q", s)
	}
	return recall.Range{Before: n[0], After: n[len(n)-1]}, nil
}
