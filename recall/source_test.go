package recall_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// TestWithToolCallsText: a tool call contributes its name and its
// arguments' decoded text: keys and strings as they decode (escapes
// resolved, surrogate pairs included), numbers, booleans and null as
// written, no JSON punctuation; a string argument is the model's text.
func TestWithToolCallsText(t *testing.T) {
	for _, c := range []struct{ content, calls, want string }{
		{"", "", ""},
		{"hi", "not json", "hi"},
		{"", `[{"id":"c1","name":"weather","arguments":{"city":"Z\u00fcrich","note":"\u003cbilby\u003e"}}]`, "weather city Zürich note <bilby>"},
		{"ok", `[{"id":"c1","name":"f","arguments":{}},{"id":"c2","name":"g","arguments":{"n":-1.5e3,"on":true,"x":null,"l":[1,"a b",{"k":false}]}}]`,
			"ok f g n -1.5e3 on true x null l 1 a b k false"},
		{"", `[{"id":"c1","name":"note","arguments":"remember the quokka\u0027s \"burrow\" \ud83d\ude00"}]`, `note remember the quokka's "burrow" 😀`},
		{"", `[{"id":"c1","name":"f"}]`, "f"},
		{"", `[{"id":"c1","name":"f","arguments":{ "a" : "\\u00fc" , "b\n" : 2 }}]`, `f a \u00fc b` + "\n 2"},
	} {
		if got := recall.WithToolCalls(c.content, []byte(c.calls)); got != c.want {
			t.Errorf("WithToolCalls(%q, %s) = %q, want %q", c.content, c.calls, got, c.want)
		}
	}
}

// BenchmarkWithToolCalls: one assistant turn's text with two tool calls,
// one of escaped arguments (run per message on ingest and on every load
// of a resource from the stored rows).
func BenchmarkWithToolCalls(b *testing.B) {
	calls := []byte(`[{"id":"call_1","name":"search_flights","arguments":{"from":"Z\u00fcrich","to":"M\u00fcnchen","date":"2026-12-24","passengers":2,"flexible":true}},` +
		`{"id":"call_2","name":"note","arguments":{"text":"` + strings.Repeat("the customer prefers an aisle seat ", 8) + `"}}]`)
	b.ReportAllocs()
	for b.Loop() {
		_ = recall.WithToolCalls("Let me look that up.", calls)
	}
}
