package observe_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
)

// copying is an observer/reflector model that copies text back as a
// model condensing it might: the observer writes each turn's content as
// one item citing its seq; the reflector, with join, one item joining
// every observation's text as it read it (rendered lines, "- " markers
// and all), else one item per line of each observation, copied verbatim.
func copying(join bool) func(openai.ChatCompletionRequest) (int, string, time.Duration) {
	return func(req openai.ChatCompletionRequest) (int, string, time.Duration) {
		user := req.Messages[len(req.Messages)-1].Content
		lines := strings.Split(user, "\n")
		var items []map[string]any
		for _, l := range lines[1 : len(lines)-1] {
			var w struct {
				Seq     int64  `json:"seq"`
				Content string `json:"content"`
				ID      string `json:"id"`
				Text    string `json:"text"`
			}
			if err := json.Unmarshal([]byte(l), &w); err != nil {
				return 200, "not json", 0
			}
			switch {
			case strings.HasPrefix(user, "<conversation"):
				if w.Content == "" {
					continue
				}
				items = append(items, map[string]any{"text": w.Content, "seqs": []int64{w.Seq}})
			case join:
				if len(items) == 0 {
					items = append(items, map[string]any{"text": ""})
				}
				items[0]["text"] = strings.TrimSpace(items[0]["text"].(string) + " " + w.Text)
			default:
				for _, t := range strings.Split(w.Text, "\n") {
					items = append(items, map[string]any{"text": t, "sources": []string{w.ID}})
				}
			}
		}
		field := "reflection"
		if strings.HasPrefix(user, "<conversation") {
			field = "observations"
		}
		if items == nil {
			items = []map[string]any{}
		}
		b, _ := json.Marshal(map[string]any{field: items})
		return 200, string(b), 0
	}
}

// longFact is a user turn of about n characters of distinct sentences,
// each naming source i: "Fact 3.17 of the user: Ana keeps bees near the
// river." …
func longFact(i, n int) string {
	var b strings.Builder
	for k := 0; b.Len() < n-60; k++ {
		fmt.Fprintf(&b, "Fact %d.%d of the user: Ana keeps bees near the river. ", i, k)
	}
	return strings.TrimSpace(b.String())
}

func TestLongReflectionKept(t *testing.T) { forEachBackend(t, testLongReflectionKept) }

// testLongReflectionKept is walk58 F4: six observations of about 2,000
// characters each, condensed by a reflector into one item of about
// 12,000, kept only the first source's text (the item was cut at
// MaxItemChars, silently). Now the item is stored whole as several items
// of at most MaxItemChars, split between sentences; the recorded answer
// counts the split and a WARN says so.
func testLongReflectionKept(t *testing.T, b backend) {
	f := newFakeModel(t, copying(true))
	src := &memSource{}
	for i := range 6 {
		src.add("t", 10, user(longFact(i, observe.MaxItemChars)))
	}
	src.add("t", 10, assistant("")) // answers the last: no turn is pending
	var logs strings.Builder
	e := b.openEnv(t, b.Place(t), src, f.model(t), observe.Config{Threshold: 10, ChunkTokens: 10, RecentN: -1,
		ReflectThreshold: 1 << 20, Logger: textLogger(&logs)})
	res, err := e.obs.Observe(ctx, "t", observe.Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reflection == nil || len(res.Reflection.Sources) != 6 {
		t.Fatalf("stored %d observations and reflection %v, want a reflection of 6", len(res.Observations), res.Reflection)
	}
	r := res.Reflection
	for i := range 6 {
		for _, s := range strings.SplitAfter(longFact(i, observe.MaxItemChars), ". ") {
			if !strings.Contains(r.Content, strings.TrimSpace(s)) {
				t.Fatalf("the reflection lost %q of source %d (%d chars stored)", s, i, len(r.Content))
			}
		}
	}
	lines := strings.Split(r.Content, "\n")
	for _, l := range lines {
		if !strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "- -") || utf8.RuneCountInString(l) > 2+observe.MaxItemChars {
			t.Fatalf("stored item %.80q… of %d runes: want one \"- \" and at most %d runes", l, utf8.RuneCountInString(l), observe.MaxItemChars)
		}
		if !strings.HasSuffix(l, ".") {
			t.Errorf("item split inside a sentence: …%q", l[len(l)-40:])
		}
	}
	if len(lines) < 6 {
		t.Fatalf("%d items, want at least 6", len(lines))
	}
	raw, err := e.j.Recorded(ctx, journal.ScopeMemo, r.MemoKey)
	if err != nil {
		t.Fatal(err)
	}
	var ans struct{ Split int } // observe.Answer.Split
	if err := json.Unmarshal(raw, &ans); err != nil || ans.Split != 1 {
		t.Fatalf("recorded answer says split %d (%v), want 1", ans.Split, err)
	}
	if !strings.Contains(logs.String(), "none cut") || !strings.Contains(logs.String(), "split=1") {
		t.Fatalf("no WARN about the split:\n%s", logs.String())
	}
}

func TestReflectionListMarkers(t *testing.T) { forEachBackend(t, testReflectionListMarkers) }

// testReflectionListMarkers is walk58 F4: the reflector reads the
// observations' rendered lines ("- fact"), and a model copying one back
// was stored as "- - fact", one more "- " at each reflection of a
// reflection ("- - - - fact"), and an untrusted item as "- [untrusted: …]
// [untrusted: …] fact". The stored item holds the fact only: one marker,
// whatever the rounds.
func testReflectionListMarkers(t *testing.T, b backend) {
	f := newFakeModel(t, copying(false))
	src := &memSource{}
	e := b.openEnv(t, b.Place(t), src, f.model(t), observe.Config{Threshold: 10, ChunkTokens: 10, RecentN: -1, ReflectThreshold: 1 << 20})
	src.add("t", 10, user("Ana keeps bees."), call("c1", "weather"), result("c1", "Rain in Lyon tomorrow."))
	for round := range 4 {
		src.add("t", 10, user(fmt.Sprintf("Round %d: Ana likes honey.", round)), assistant(""))
		res, err := e.obs.Observe(ctx, "t", observe.Options{Force: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Reflection == nil {
			t.Fatalf("round %d: no reflection", round)
		}
		for _, l := range strings.Split(res.Reflection.Content, "\n") {
			fact := strings.TrimPrefix(strings.TrimPrefix(l, "- "), observe.UntrustedMark)
			if strings.HasPrefix(fact, "-") || strings.Contains(fact, "[untrusted") {
				t.Fatalf("round %d: stored item %q, want one marker before the fact", round, l)
			}
		}
	}
}

func TestReflectorEchoSaysWhy(t *testing.T) { forEachBackend(t, testReflectorEchoSaysWhy) }

// testReflectorEchoSaysWhy is walk58 F6: a reflector answer whose only
// item is all prompt words ("Reflected: 3 observations") is dropped by
// the grounding rule, as before; the error said only "every item restated
// the reflector's instructions". It names the item, the words that come
// from the instructions (theirs, not the conversation's), the rule and what
// happens next.
func testReflectorEchoSaysWhy(t *testing.T, b backend) {
	f := newFakeModel(t, copying(false))
	src := &memSource{}
	e := b.openEnv(t, b.Place(t), src, f.model(t), observe.Config{Threshold: 10, ChunkTokens: 10, RecentN: -1, ReflectThreshold: 1 << 20})
	src.add("t", 10, user("Ana keeps bees."), user("Ana lives in Lyon."), user("Ana likes honey."), assistant(""))
	if _, err := e.obs.Observe(ctx, "t", observe.Options{Force: true, NoReflect: true}); err != nil {
		t.Fatal(err)
	}
	f.setAnswer(text(`{"reflection": [{"text": "Reflected: 3 observations"}]}`))
	_, err := e.obs.Reflect(ctx, "t", true)
	if !errors.Is(err, observe.ErrEmptyAnswer) {
		t.Fatalf("err = %v, want ErrEmptyAnswer", err)
	}
	for _, want := range []string{"item 1:", "(reflected, observations)", "come only from the reflector's instructions, none from the observations it cites",
		"grounding rule", "the observations stay live"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if live := list(t, e, "t", false); len(live) != 3 {
		t.Fatalf("%d live observations, want the 3 sources", len(live))
	}
}

// textLogger logs text lines to w.
func textLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
