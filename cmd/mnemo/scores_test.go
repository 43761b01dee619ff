package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/models"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/recall/uselite"
)

const (
	// rulesText is the hybrid rules of the tests' hash-384 searches (and of
	// any thread's search): no session rule, which hash-384 turns off;
	// sessionRulesText those of a resource-wide use-lite search.
	rulesText        = "then mnemo's hybrid rules (a user's turn takes the better of its score and its reply's, unless the question asks what the agent said or names the conversation; speaker and date boosts)"
	sessionRulesText = "then mnemo's hybrid rules (a user's turn takes the better of its score and its reply's, unless the question asks what the agent said or names the conversation; standardised again and raised by its session's evidence; speaker and date boosts)"
	standardised     = "the ranking score of this search, comparable within it only, may be negative: the channels' scores fused (--fusion weighted: each standardised over the candidates, 0 their mean), " + rulesText
	rrfLegend        = "the ranking score of this search, comparable within it only, may be negative: reciprocal rank fusion of the channels (--fusion rrf: Σ 1/(60 + rank)), " + rulesText
	presence         = "the only candidate's channels' presence (--fusion weighted: one candidate has nothing to standardise against, and no hybrid rule changes it): 1 when both channels scored it, less when one did"
	eitherWay        = standardised + "; if it was the only candidate, its channels' presence instead: 1 when both channels scored it, less when one did"
	// columnsText says what the lexical and vector columns are.
	columnsText = lexicalText + vectorText
	lexicalText = " · lexical: BM25 of the turn " + contextText
	vectorText  = " · vector: cosine similarity of the turn " + contextText
	// contextText is the turn-context rule under the defaults (α 0.5).
	contextText = "with its exchange context (≥ 0.5 × its neighbours')"
)

// scoresFixture ingests resource r (three messages about a garden) and
// resource one (a single message) into a new data directory.
func scoresFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "c.jsonl")
	os.WriteFile(file, []byte(`{"thread":"t","resource":"r","role":"user","content":"the garden needs water"}
{"thread":"t","resource":"r","role":"assistant","content":"I will bring the garden hose"}
{"thread":"t","resource":"r","role":"user","content":"and the tomatoes are ripe"}
{"thread":"u","resource":"one","role":"user","content":"the garden needs water"}
`), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", file); code != 0 {
		t.Fatalf("ingest: exit %d, %s", code, stderr)
	}
	return dir
}

// legendOf returns the "scores:" legend of out unwrapped (printLegend):
// its lines joined by a space, or by " · " before a line that begins a
// column's part ("lexical: ", "vector: ", "-: "), the indents taken out;
// "" when out has none. A line of it wider than legendWidth fails t.
func legendOf(t *testing.T, out string) string {
	t.Helper()
	text, _ := legendAt(t, out)
	return text
}

// legendAt is legendOf and the index of the line of out after the legend.
func legendAt(t *testing.T, out string) (string, int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, "scores: ") {
			continue
		}
		text, end := line, i+1
		for ; end < len(lines); end++ {
			rest, ok := strings.CutPrefix(lines[end], legendIndent)
			if !ok || rest == "" || rest[0] == ' ' {
				break
			}
			sep := " "
			for _, p := range []string{"lexical: ", "vector: ", "-: "} {
				if strings.HasPrefix(rest, p) {
					sep = " · "
				}
			}
			text += sep + rest
		}
		for _, l := range lines[i:end] {
			if n := utf8.RuneCountInString(l); n > legendWidth {
				t.Errorf("legend line of %d characters, wider than %d: %q", n, legendWidth, l)
			}
		}
		return text, end
	}
	return "", -1
}

// lineWith returns the line of out that starts with prefix, or "".
func lineWith(out, prefix string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}

// TestSearchScoreLegendLone: a hybrid search with one candidate (a
// resource of one message) prints its presence score (1.000: both
// channels scored it), and the "scores:" line says so; it said
// "standardised … 0 is their mean", which a lone candidate's score is not.
// With --top-k 1 one hit may be the only candidate or the best of many:
// the line says both.
func TestSearchScoreLegendLone(t *testing.T) {
	dir := scoresFixture(t)
	const columns = columnsText // every hit holds both channels' scores: no "-"
	for _, c := range []struct {
		args   []string
		legend string
		score  string
	}{
		{[]string{"--resource", "one"}, presence, "1.000"},
		{[]string{"--resource", "one", "--top-k", "1"}, eitherWay, "1.000"},
		{[]string{"--resource", "r", "--top-k", "1"}, eitherWay, ""},
		{[]string{"--resource", "r"}, standardised, ""},
	} {
		args := append(append([]string{"--dir", dir, "search"}, c.args...), "garden water")
		code, out, stderr := run(t, nil, args...)
		if code != 0 {
			t.Fatalf("search %v: exit %d, %s", c.args, code, stderr)
		}
		if got, want := legendOf(t, out), "scores: score: "+c.legend+columns; got != want {
			t.Errorf("search %v: scores line\n%q, want\n%q", c.args, got, want)
		}
		if row := strings.Fields(lineWith(out, "u ")); c.score != "" && (len(row) < 3 || row[2] != c.score) {
			t.Errorf("search %v: the hit's row %q, want score %s:\n%s", c.args, row, c.score, out)
		}
	}
}

// TestContextScoreLegend: mnemo context (and mnemo memctx) print the
// recalled turns' scores, which in hybrid mode are fused and standardised
// (-0.85 …) with nothing saying so before; a "scores:" line now says what
// they are, as mnemo search's does, by the fusion the run's record names,
// and only the columns shown (no vector part with --mode lexical); without
// a recalled turn showing a score (none recalled, or the budget dropped
// them) there is no line.
func TestContextScoreLegend(t *testing.T) {
	dir := scoresFixture(t)
	const columns = columnsText
	for _, c := range []struct {
		name   string
		args   []string
		legend string
	}{
		{"Weighted", []string{"--thread", "t", "--recent", "1", "--top-k", "3", "--run-id", "w"}, standardised + columnsText},
		{"RRF", []string{"--thread", "t", "--recent", "1", "--top-k", "3", "--fusion", "rrf"}, rrfLegend + columnsText},
		{"Lexical", []string{"--thread", "t", "--recent", "1", "--top-k", "3", "--mode", "lexical"}, "the lexical channel's (--mode lexical)" + lexicalText},
		{"Lone", []string{"--thread", "u", "--recent", "-1", "--top-k", "3", "--query", "garden"}, presence + columnsText},
		{"NoRecall", []string{"--thread", "t", "--recent", "1"}, ""},
		// The budget dropped every recalled turn: no score is shown, and
		// the legend was printed with nothing to explain.
		{"Dropped", []string{"--thread", "t", "--recent", "1", "--top-k", "3", "--budget", "1"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := run(t, nil, append([]string{"--dir", dir, "context"}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d, %s", code, stderr)
			}
			want := ""
			if c.legend != "" {
				want = "scores: score: " + c.legend
			}
			if got := legendOf(t, out); got != want {
				t.Errorf("scores line\n%q, want\n%q\n%s", got, want, out)
			}
		})
	}
	// memctx reads the fusion and the hybrid rules from the record: w ran
	// weighted, r rrf, both with hash-384's rules (no session rule);
	// context printed the same lines from the record it made.
	const (
		hashRules       = "rules: speaker boost 2 sd · date boost 2 sd · exchange order"
		defaultChannels = "channels: pool 100 · context 0.5 (before and after) · exchange · BM25 k1 1.2 b 0.75 · date terms · answer types · compound bonus"
	)
	for _, c := range []struct{ run, legend, options string }{
		{"w", standardised, "fusion: weighted (vector weight 0.15, standardise)"},
		{"r", rrfLegend, "fusion: rrf (k 60)"},
	} {
		t.Run("MemCtx/"+c.run, func(t *testing.T) {
			if c.run == "r" {
				if code, _, stderr := run(t, nil, "--dir", dir, "context", "--thread", "t", "--recent", "1", "--top-k", "3", "--fusion", "rrf", "--run-id", "r"); code != 0 {
					t.Fatalf("context: exit %d, %s", code, stderr)
				}
			}
			code, out, stderr := run(t, nil, "--dir", dir, "memctx", c.run)
			if code != 0 {
				t.Fatalf("exit %d, %s", code, stderr)
			}
			if got, want := legendOf(t, out), "scores: score: "+c.legend+columns; got != want {
				t.Errorf("memctx: scores line\n%q, want\n%q", got, want)
			}
			if got := lineWith(out, "fusion: "); got != c.options {
				t.Errorf("memctx: fusion line %q, want %q", got, c.options)
			}
			if got := lineWith(out, "rules: "); got != hashRules {
				t.Errorf("memctx: rules line %q, want %q", got, hashRules)
			}
			if got := lineWith(out, "channels: "); got != defaultChannels {
				t.Errorf("memctx: channels line %q, want %q", got, defaultChannels)
			}
			code, out, stderr = run(t, nil, "--dir", dir, "memctx", "--json", c.run)
			if code != 0 {
				t.Fatalf("memctx --json: exit %d, %s", code, stderr)
			}
			for _, want := range []string{`"rules":{"exchangeOrder":true,"speakerWeight":2,"dateWeight":2}`,
				`"channels":{"pool":100,"contextWeight":0.5,"turnAfter":true,"exchange":true,"k1":1.2,"b":0.75,"dates":true,"answerTypes":true,"compounds":true}`} {
				if !strings.Contains(out, want) {
					t.Errorf("memctx --json: %s lacks %s", out, want)
				}
			}
		})
	}
}

// TestMemCtxScoreLegendUnknown: a record written before the fusion was
// recorded (hybrid, scored hits, no options.fusion) says both fusions'
// meaning and that the fusion was not recorded, never the default's
// alone; it prints no fusion line.
func TestMemCtxScoreLegendUnknown(t *testing.T) {
	dir := scoresFixture(t)
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := e.Messages(ctx, "t", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	score, lex, vec := -0.5, 1.2, 0.3
	rec := &journal.MemCtx{RunID: "old", ThreadID: "t", ResourceID: "r", Query: "garden",
		Options:  journal.Options{RecentN: 1, TopK: 3, Scope: "resource", Mode: "hybrid"},
		Recalled: []journal.Ref{{ThreadID: "t", Seq: ms[0].Seq, MessageID: ms[0].ID, Role: "user", Preview: "the garden needs water", Score: &score, Lexical: &lex, Vector: &vec, Reason: "hit"}},
		Recent:   []journal.Ref{}, Dropped: []journal.Ref{}, Observations: []journal.ObservationRef{},
		Retrieval: journal.Retrieval{Lexical: "ok", Vector: "ok", Embedder: "hash-384"}, PromptHash: "sha256:x"}
	if err := e.Journal().PutMemCtx(ctx, rec, false); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "memctx", "old")
	if code != 0 {
		t.Fatalf("exit %d, %s", code, stderr)
	}
	got := legendOf(t, out)
	for _, w := range []string{"--fusion weighted, the default, standardises each channel", "--fusion rrf sums 1/(60 + rank)", "not recorded", rulesText + " " + recall.RulesNotRecorded,
		"lexical: BM25 of the turn " + contextText + " " + recall.ChannelsNotRecorded, "vector: cosine similarity of the turn " + contextText + " " + recall.ChannelsNotRecorded} {
		if !strings.Contains(got, w) {
			t.Errorf("memctx: scores line %q lacks %q", got, w)
		}
	}
	if got := lineWith(out, "fusion: "); got != "" {
		t.Errorf("memctx of a record without a fusion: %q", got)
	}
	if got, want := lineWith(out, "rules: "), "rules: not recorded (the record predates them)"; got != want {
		t.Errorf("memctx of a record without rules: %q, want %q", got, want)
	}
	if got, want := lineWith(out, "channels: "), "channels: not recorded (the record predates it)"; got != want {
		t.Errorf("memctx of a record without channels: %q, want %q", got, want)
	}
}

// TestMemCtxChannelsDisplay: mnemo memctx says the channel tuning a
// record names on its channels line, and the legend's lexical and vector
// columns say the turn-context rule it ran with: α 0.3 through the turn
// before only reads "at least 0.3 × the turn before's", never the
// default's 0.5 and turn after; the rule off reads "alone"; a record
// without its channel tuning says it was not recorded and gives this
// version's default as such; a record of recall off has no channels line.
func TestMemCtxChannelsDisplay(t *testing.T) {
	score, lex, vec := 0.8, 1.5, 0.4
	for _, c := range []struct {
		name     string
		mode     string
		channels *journal.Channels
		line     string // the channels line, "" for none
		column   string // what the lexical column says after "BM25 of the turn "
	}{
		{"Alpha", "hybrid", &journal.Channels{Pool: 50, ContextWeight: 0.3, Exchange: true, K1: 1.2, B: 0.75, Dates: true},
			"channels: pool 50 · context 0.3 (before) · exchange · BM25 k1 1.2 b 0.75 · date terms", "with its exchange context (≥ 0.3 × the turn before's)"},
		{"ContextOff", "lexical", &journal.Channels{Pool: 100, K1: 1.2, B: 0.75, Compounds: true},
			"channels: pool 100 · context off · BM25 k1 1.2 b 0.75 · compound bonus", "alone (the turn-context rule was off)"},
		{"Default", "hybrid", &journal.Channels{Pool: 100, ContextWeight: 0.5, TurnAfter: true, Exchange: true, K1: 1.2, B: 0.75, Dates: true, AnswerTypes: true, Compounds: true},
			"channels: pool 100 · context 0.5 (before and after) · exchange · BM25 k1 1.2 b 0.75 · date terms · answer types · compound bonus", contextText},
		{"NotRecorded", "hybrid", nil, "channels: not recorded (the record predates it)", contextText + " " + recall.ChannelsNotRecorded},
		{"RecallOff", "", nil, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &journal.MemCtx{RunID: "x", ThreadID: "t", ResourceID: "r",
				Options:   journal.Options{TopK: 3, Scope: "resource", Mode: c.mode, Channels: c.channels},
				Recalled:  []journal.Ref{{ThreadID: "t", Seq: 1, Role: "user", Score: &score, Lexical: &lex, Vector: &vec, Reason: "hit"}, {ThreadID: "t", Seq: 2, Role: "user", Score: &score, Lexical: &lex, Vector: &vec, Reason: "hit"}},
				Retrieval: journal.Retrieval{Lexical: "ok", Vector: "ok", Embedder: recall.HashID}}
			if c.mode == "" {
				rec.Recalled = nil
			}
			var b strings.Builder
			printMemCtx(&b, rec)
			out := b.String()
			if got := lineWith(out, "channels: "); got != c.line {
				t.Errorf("channels line %q, want %q\n%s", got, c.line, out)
			}
			got := legendOf(t, out)
			if c.column == "" {
				if got != "" {
					t.Errorf("legend %q, want none", got)
				}
				return
			}
			for _, w := range []string{"lexical: BM25 of the turn " + c.column, "vector: cosine similarity of the turn " + c.column} {
				if !strings.Contains(got, w) {
					t.Errorf("legend %q lacks %q", got, w)
				}
			}
			if c.channels != nil && c.channels.ContextWeight != 0.5 && strings.Contains(got, "0.5") {
				t.Errorf("legend %q says the default α", got)
			}
		})
	}
}

// TestSearchScoresTuning: mnemo search's legend says the tuning the
// engine searched with (engine.Engine.RecallTuning), not this version's
// defaults: its turn-context rule in the columns and its hybrid rules in
// the score (here α 0.3 through the turn before, no speaker or date
// boost).
func TestSearchScoresTuning(t *testing.T) {
	score, lex, vec := 0.8, 1.5, 0.4
	hits := []searchHit{{Score: &score, Lexical: &lex, Vector: &vec}, {Score: &score, Lexical: &lex, Vector: &vec}}
	o := recall.Options{TopK: 5, Mode: recall.ModeHybrid, Scope: recall.ScopeResource}
	tuning := recall.Tuning{ContextWeight: 0.3, NoTurnAfter: true, SpeakerWeight: -1, DateWeight: -1}.Resolve(recall.HashID)
	got := strings.Join(searchScores(o, tuning, recall.Retrieval{Lexical: "ok", Vector: "ok", Embedder: recall.HashID}, hits).legend(shownScores{score: true, lexical: true, vector: true}), " · ")
	for _, w := range []string{
		"then mnemo's hybrid rules (a user's turn takes the better of its score and its reply's, unless the question asks what the agent said or names the conversation)",
		"lexical: BM25 of the turn with its exchange context (≥ 0.3 × the turn before's)",
		"vector: cosine similarity of the turn with its exchange context (≥ 0.3 × the turn before's)",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("legend %q lacks %q", got, w)
		}
	}
	for _, w := range []string{"speaker", "date boost", "0.5", "not recorded", "defaults"} {
		if strings.Contains(got, w) {
			t.Errorf("legend %q says %q", got, w)
		}
	}
}

// TestMemCtxRulesDisplay: mnemo memctx says the hybrid rules a record
// names, with their weights on the rules line and in words in the
// "scores:" legend, whatever the embedder's defaults would be (a hash-384
// run of a tuning with the session rules on says them; a run with every
// rule off says none ran); a record of a hybrid run without rules says
// they were not recorded, and gives this version's defaults as such; a
// single-channel run has no rules line.
func TestMemCtxRulesDisplay(t *testing.T) {
	w, score := 0.15, 0.8
	for _, c := range []struct {
		name   string
		mode   string
		rules  *journal.Rules
		line   string // the rules line, "" for none
		legend string // what the legend's score part must hold, "" for nothing
	}{
		{"Recorded", "hybrid", &journal.Rules{ExchangeOrder: true, SessionWeight: 0.3, TopicWeight: 0.2, SpeakerWeight: 2, DateWeight: 1.5},
			"rules: session evidence 0.3 · session topic 0.2 · speaker boost 2 sd · date boost 1.5 sd · exchange order", sessionRulesText},
		{"SpeakerOnly", "hybrid", &journal.Rules{SpeakerWeight: 2}, "rules: speaker boost 2 sd", "then mnemo's hybrid rules (speaker boost)"},
		{"NoneRan", "hybrid", &journal.Rules{}, "rules: none (all turned off)", "then none of mnemo's hybrid rules (all turned off)"},
		{"NotRecorded", "hybrid", nil, "rules: not recorded (the record predates them)", rulesText + " " + recall.RulesNotRecorded},
		{"Lexical", "lexical", nil, "", "the lexical channel's (--mode lexical)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &journal.MemCtx{RunID: "x", ThreadID: "t", ResourceID: "r",
				Options:   journal.Options{TopK: 3, Scope: "resource", Mode: c.mode, Rules: c.rules},
				Recalled:  []journal.Ref{{ThreadID: "t", Seq: 1, Role: "user", Score: &score, Reason: "hit"}, {ThreadID: "t", Seq: 2, Role: "user", Score: &score, Reason: "hit"}},
				Retrieval: journal.Retrieval{Lexical: "ok", Vector: "ok", Embedder: recall.HashID}}
			if c.mode == "hybrid" {
				rec.Options.Fusion, rec.Options.FusionParams = recall.FusionWeighted, &journal.FusionParams{VectorWeight: &w, Normalise: recall.NormStandardise}
			}
			var b strings.Builder
			printMemCtx(&b, rec)
			out := b.String()
			if got := lineWith(out, "rules: "); got != c.line {
				t.Errorf("rules line %q, want %q\n%s", got, c.line, out)
			}
			if got := legendOf(t, out); !strings.Contains(got, c.legend) {
				t.Errorf("legend %q lacks %q", got, c.legend)
			}
		})
	}
}

// TestMemCtxScoreLegendMaxNorm: a record whose weighted fusion was
// max-normalised (recall.Tuning.MaxNorm, as mnemo eval --max-norm runs)
// says its channels were max-normalised, not standardised, and not that
// its scores are within [0, 1]: the hybrid rules after the fusion (the
// session rule standardises again) take them out of it.
func TestMemCtxScoreLegendMaxNorm(t *testing.T) {
	w, score := 0.3, 0.8
	rec := &journal.MemCtx{Options: journal.Options{TopK: 3, Mode: "hybrid", Fusion: "weighted", FusionParams: &journal.FusionParams{VectorWeight: &w, Normalise: recall.NormMax}},
		Recalled: []journal.Ref{{Score: &score}, {Score: &score}}, Retrieval: journal.Retrieval{Lexical: "ok", Vector: "ok"}}
	if got := memctxScores(rec).score(); !strings.Contains(got, "max-normalised") || strings.Contains(got, "within [0, 1]") || strings.Contains(got, "each standardised") || !strings.Contains(got, "unless the embedder was hash-384, standardised again") {
		t.Errorf("max-normalised record's legend %q", got)
	}
	if got, want := fusionText(rec.Options), "weighted (vector weight 0.3, max)"; got != want {
		t.Errorf("fusion %q, want %q", got, want)
	}
}

// tableRows returns the rows of a search's text table (after its header),
// each split into fields, keyed by seq.
func tableRows(t *testing.T, out string) map[string][]string {
	t.Helper()
	rows := map[string][]string{}
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, "thread ") {
			continue
		}
		for _, l := range lines[i+1:] {
			if f := strings.Fields(l); len(f) >= 5 {
				rows[f[1]] = f
			}
		}
	}
	return rows
}

// scoreField parses a score field.
func scoreField(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("score %q: %v", s, err)
	}
	return v
}

// TestSearchScoreLegendExchangeOrder: with hash-384 and the weighted
// fusion, the reply "I will bring the garden hose" has the higher lexical
// and vector scores for "garden hose", yet the user's turn before it ranks
// first (1.404 against -0.644): the exchange order rule gave the request
// the better of the two fused scores. The "scores:" line said the score was
// the channels' standardised scores fused, which these numbers are not; it
// names the hybrid rules now.
func TestSearchScoreLegendExchangeOrder(t *testing.T) {
	dir := scoresFixture(t)
	code, out, stderr := run(t, nil, "--dir", dir, "search", "--resource", "r", "garden hose")
	if code != 0 {
		t.Fatalf("exit %d, %s", code, stderr)
	}
	rows := tableRows(t, out)
	req, rep := rows["1"], rows["2"]
	if req == nil || rep == nil {
		t.Fatalf("no rows for seq 1 and 2:\n%s", out)
	}
	if scoreField(t, rep[3]) <= scoreField(t, req[3]) || scoreField(t, rep[4]) <= scoreField(t, req[4]) || scoreField(t, req[2]) <= scoreField(t, rep[2]) {
		t.Fatalf("want the reply's channel scores higher and the request's score higher (the exchange order rule):\n%s", out)
	}
	if got, want := legendOf(t, out), "scores: score: "+standardised+columnsText; got != want {
		t.Errorf("scores line\n%q, want\n%q", got, want)
	}
}

// TestScoreLegendRRFRules: with use-lite, an rrf search of the demo's
// resource scores 1.496, far above Σ 1/(60 + rank)'s most (2/61, 0.033),
// as the session rules standardise the fused scores again and add the
// thread's evidence; the "scores:" line said Σ 1/(60 + rank) alone, and so
// did mnemo context's. It names the hybrid rules after the fusion now.
func TestScoreLegendRRFRules(t *testing.T) {
	root, err := models.Dir(nil)
	if err != nil {
		t.Skip(err)
	}
	if _, err := os.Stat(filepath.Join(models.Path(root, uselite.ID), uselite.ModelFile)); err != nil {
		t.Skipf("use-lite not installed (mnemo models fetch use-lite): %v", err)
	}
	env := map[string]string{"MNEMO_EMBEDDER": "use-lite"}
	dir := filepath.Join(t.TempDir(), "demo")
	if code, _, stderr := run(t, env, "--dir", dir, "demo", "--keep"); code != 0 {
		t.Fatalf("demo: exit %d, %s", code, stderr)
	}
	code, out, stderr := run(t, env, "--dir", dir, "search", "--resource", "ana", "--fusion", "rrf", "--top-k", "12", "night train booking")
	if code != 0 {
		t.Fatalf("search: exit %d, %s", code, stderr)
	}
	highest := math.Inf(-1)
	for _, r := range tableRows(t, out) {
		if r[2] != "-" {
			highest = max(highest, scoreField(t, r[2]))
		}
	}
	if highest <= 2.0/61 {
		t.Fatalf("highest rrf score %.3f, want above 2/61 (the session rules):\n%s", highest, out)
	}
	rrfSession := strings.Replace(rrfLegend, rulesText, sessionRulesText, 1)
	if got, want := legendOf(t, out), "scores: score: "+rrfSession+columnsText+" · -: no score"; got != want {
		t.Errorf("search: scores line\n%q, want\n%q", got, want)
	}
	// A thread's search runs no session rule, with use-lite as well.
	code, out, stderr = run(t, env, "--dir", dir, "search", "--resource", "ana", "--thread", "ana:trip-planning", "--fusion", "rrf", "night train booking")
	if code != 0 {
		t.Fatalf("search --thread: exit %d, %s", code, stderr)
	}
	if got, want := legendOf(t, out), "scores: score: "+rrfLegend+columnsText; got != want { // every hit holds both channels' scores: no "-"
		t.Errorf("search --thread: scores line\n%q, want\n%q", got, want)
	}
	code, out, stderr = run(t, env, "--dir", dir, "context", "--thread", "ana:today", "--fusion", "rrf", "--query", "night train booking")
	if code != 0 {
		t.Fatalf("context: exit %d, %s", code, stderr)
	}
	if got, want := legendOf(t, out), "scores: score: "+rrfSession+columnsText; got != want {
		t.Errorf("context: scores line\n%q, want\n%q\n%s", got, want, out)
	}
}

// TestScoreLegendSessionRules: the "scores:" line names the session rules
// only where they ran: a resource-wide search with an embedder other than
// hash-384 (recall.DefaultSessionWeight and DefaultTopicWeight turn them
// off for hash-384; a thread's search has no sessions to weigh), and as a
// condition when the embedder is not said. It named them for every search
// ("in a resource-wide search, standardised again …"), which with hash-384
// did not happen: "night train booking" on the demo's resource scored the
// weighted fusion's own figures, the exchange order aside.
func TestScoreLegendSessionRules(t *testing.T) {
	for _, c := range []struct {
		name, scope, embedder string
		want                  string
	}{
		{"UseLiteResource", "resource", "use-lite", sessionRulesText},
		{"UseLiteDefaultScope", "", "use-lite", sessionRulesText},
		{"UseLiteThread", "thread", "use-lite", rulesText},
		{"HashResource", "resource", recall.HashID, rulesText},
		{"HashThread", "thread", recall.HashID, rulesText},
		{"EmbedderNotSaid", "resource", "", "; unless the embedder was hash-384, standardised again and raised by its session's evidence; speaker and date boosts)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := scoredSearch{mode: recall.ModeHybrid, fusion: recall.FusionWeighted, lexical: "ok", vector: "ok", topK: 5, hits: 3, scope: c.scope, embedder: c.embedder}
			if got := s.score(); !strings.HasSuffix(got, c.want) {
				t.Errorf("legend %q, want it to end %q", got, c.want)
			}
		})
	}
}

// TestPrintLegend: each column's part begins a line of the legend, a part
// wider than legendWidth wraps at spaces with its further lines indented,
// and legendOf gives the one-line text back. The legend was one line of
// about 470 characters.
func TestPrintLegend(t *testing.T) {
	long := "score: " + strings.Repeat("a word ", 40) + "end"
	var b strings.Builder
	printLegend(&b, long, "lexical: BM25", "-: no score")
	out := b.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[0], "scores: score: a word") || lines[len(lines)-2] != legendIndent+"lexical: BM25" || lines[len(lines)-1] != legendIndent+"-: no score" {
		t.Fatalf("legend:\n%s", out)
	}
	if got, want := legendOf(t, out), "scores: "+long+" · lexical: BM25 · -: no score"; got != want {
		t.Errorf("unwrapped %q, want %q", got, want)
	}
}

// TestScoreLegendThreshold: with --threshold a hybrid hit whose cosine is
// under it shows "-" in the vector column (recall.Options.Threshold),
// while the weighted fusion counted that cosine (a2ecd43); the legend said
// "-: no score" alone, hiding a score that ranked the hit. It says so now,
// and that rrf and the max-normalised fusion do not count it.
func TestScoreLegendThreshold(t *testing.T) {
	dir := scoresFixture(t)
	for _, c := range []struct {
		args []string
		want string // the legend's "-" part; "" for none
	}{
		{[]string{"--threshold", "0.999"}, "-: no score, or a cosine under the threshold (0.999): not shown, though the fusion counted it"},
		{[]string{"--threshold", "0.999", "--fusion", "rrf"}, "-: no score, or a cosine under the threshold (0.999): not shown, and the fusion did not count it"},
		{[]string{"--threshold", "0.999", "--mode", "lexical"}, "-: no score"},
		{nil, ""},
	} {
		args := append(append([]string{"--dir", dir, "search", "--resource", "r"}, c.args...), "garden water")
		code, out, stderr := run(t, nil, args...)
		if code != 0 {
			t.Fatalf("search %v: exit %d, %s", c.args, code, stderr)
		}
		legend := legendOf(t, out)
		_, dash, _ := strings.Cut(legend, " · -: ")
		if dash != "" {
			dash = "-: " + dash
		}
		if dash != c.want {
			t.Errorf("search %v: the legend's \"-\" part %q, want %q\n%s", c.args, dash, c.want, out)
		}
	}
}

// TestScoredSearchDash: the "-" part of the legend of a memctx record's
// recall follows the record's threshold, mode and fusion as mnemo
// search's does.
func TestScoredSearchDash(t *testing.T) {
	for _, c := range []struct {
		name string
		s    scoredSearch
		want string
	}{
		{"NoThreshold", scoredSearch{mode: recall.ModeHybrid, fusion: recall.FusionWeighted}, "-: no score"},
		{"Vector", scoredSearch{mode: recall.ModeVector, threshold: 0.5}, "-: no score"},
		{"Weighted", scoredSearch{mode: recall.ModeHybrid, fusion: recall.FusionWeighted, threshold: 0.5}, "-: no score, or a cosine under the threshold (0.5): not shown, though the fusion counted it"},
		{"MaxNorm", scoredSearch{mode: recall.ModeHybrid, fusion: recall.FusionWeighted, norm: recall.NormMax, threshold: 0.5}, "-: no score, or a cosine under the threshold (0.5): not shown, and the fusion did not count it"},
		{"RRF", scoredSearch{mode: recall.ModeHybrid, fusion: recall.FusionRRF, threshold: 0.5}, "-: no score, or a cosine under the threshold (0.5): not shown, and the fusion did not count it"},
		{"Unrecorded", scoredSearch{mode: recall.ModeHybrid, threshold: -0.2}, "-: no score, or a cosine under the threshold (-0.2): not shown"},
	} {
		if got := c.s.dash(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
