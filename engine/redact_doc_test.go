package engine_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/enginetest/synth"
)

// TestRedactLineValueStopsAtStringEnd: a value after "password:" inside a
// JSON string ends at the string's line ("\n") or its end, and the rest of
// the document is kept. The rule runs to the end of the line, and in JSON
// text a line is the whole document: {"stdout":"password: x1234\nother",
// "exit":0} was stored as {"stdout":"password: [REDACTED] — "other",
// "exit":0 and the closing brace lost, no longer JSON. The same in text
// that is no JSON document (a truncated tool result, a logfmt line): the
// value stops at the escaped line break.
func TestRedactLineValueStopsAtStringEnd(t *testing.T) {
	m := engine.RedactionMark
	cases := []struct{ name, in, want string }{
		{"tool-result", `{"stdout":"password: x1234\nother","exit":0}`, `{"stdout":"password: ` + m + `\nother","exit":0}`},
		{"last-line", `{"stdout":"a\npassword: x1234","exit":0}`, `{"stdout":"a\npassword: ` + m + `","exit":0}`},
		{"two-fields", `{"stdout":"token: abcdefgh\nrest","x":"secret: a b c d\"q\" z\nnext"}`,
			`{"stdout":"token: ` + m + `\nrest","x":"secret: ` + m + `\nnext"}`},
		{"array", `["password: hunter22\nnext", 1, {"a":"b"}]`, `["password: ` + m + `\nnext", 1, {"a":"b"}]`},
		{"pretty", "{\n  \"log\": \"passphrase: correct horse\",\n  \"exit\": 0\n}", "{\n  \"log\": \"passphrase: " + m + "\",\n  \"exit\": 0\n}"},
		{"escaped-key", `{"pass\u0077ord": "abcdefgh", "user": "bob"}`, `{"pass\u0077ord": "` + m + `", "user": "bob"}`},
		{"key-scheme", `{"authorization": "token abcd1234efgh", "a": 1}`, `{"authorization": "token ` + m + `", "a": 1}`},
		{"truncated-json", `{"stdout":"password: x1234\nother","exit":0`, `{"stdout":"password: ` + m + `\nother","exit":0`},
		{"logfmt", `msg="password: abc def\nnext line" level=info`, `msg="password: ` + m + `\nnext line" level=info`},
		{"plain-lines", "password: x1234 y\nother", "password: " + m + "\nother"},
		{"escape-inside-value", `password: ab\tcd ef`, `password: ` + m},
	}
	r := engine.DefaultRedactor()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := r.Redact(c.in)
			if got != c.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
			if json.Valid([]byte(c.in)) && !json.Valid([]byte(got)) {
				t.Errorf("no longer JSON: %q", got)
			}
			if again := r.Redact(got); again != got {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

// TestAppendToolResultLineValue: the repro of TestRedactLineValueStopsAtStringEnd
// through Append: the tool result is stored as JSON with its other fields.
func TestAppendToolResultLineValue(t *testing.T) {
	ctx := t.Context()
	e := enginetest.MustOpen(t, engine.Config{})
	content := `{"stdout":"password: Pa55-Line-Zz9\nother","exit":0}`
	msgs := []engine.Message{
		{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "c1", Name: "sh", Arguments: json.RawMessage(`{}`)}}},
		{Role: engine.RoleTool, ToolCallID: "c1", Name: "sh", Content: content},
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	ms, err := e.Messages(ctx, "t", 0, 0)
	if err != nil || len(ms) != 2 {
		t.Fatalf("messages: %v %d", err, len(ms))
	}
	var got struct {
		Stdout string
		Exit   *int
	}
	stored := ms[1].Content
	if err := json.Unmarshal([]byte(stored), &got); err != nil || got.Exit == nil || got.Stdout != "password: "+engine.RedactionMark+"\nother" || strings.Contains(stored, "Pa55") {
		t.Errorf("stored %q (%v)", stored, err)
	}
}

// BenchmarkRedactToolResult measures the default redactor on tool results
// that are JSON documents holding the synthetic turns (escaped line breaks,
// no secret: every string is looked at decoded).
func BenchmarkRedactToolResult(b *testing.B) {
	c, _ := synth.New(synth.Config{Messages: 1000, Resources: 1})
	var texts []string
	for th := range c.All() {
		for _, m := range th.Messages {
			out, _ := json.Marshal(map[string]any{"stdout": m.Content + "\n" + m.Content, "exit": 0, "lines": []int{1, 2, 3}})
			texts = append(texts, string(out))
		}
	}
	r := engine.DefaultRedactor()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r.Redact(texts[i%len(texts)])
		i++
	}
}

// TestRedactCardJSONNumbers: a card number written as a JSON number is
// replaced by the JSON string "[REDACTED]" at any depth and in any
// notation of a whole number (a float as Python's json writes it,
// 4111111111111111.0; an exponent; a sign), and the document stays JSON.
// walk41 #1: {"card": 4111111111111111} in a tool result became
// {"card": [REDACTED]}, no longer JSON, and {"cards":[4111111111111111]}
// in arguments or metadata was kept in clear; 4111111111111111.0 is kept
// by the text rule (a fraction follows).
func TestRedactCardJSONNumbers(t *testing.T) {
	m := `"` + engine.RedactionMark + `"`
	cases := []struct{ in, want string }{
		{`{"card": 4111111111111111, "amount": 42}`, `{"card": ` + m + `, "amount": 42}`},
		{`{"cards":[4111111111111111, 5555555555554444]}`, `{"cards":[` + m + `, ` + m + `]}`},
		{`[4111111111111111]`, `[` + m + `]`},
		{`{"p":[{"card":4111111111111111}]}`, `{"p":[{"card":` + m + `}]}`},
		{`{"n":-4111111111111111}`, `{"n":` + m + `}`},
		{`{"n":4111111111111111.0}`, `{"n":` + m + `}`},
		{`{"n":4111111111111111.000,"x":1}`, `{"n":` + m + `,"x":1}`},
		{`{"n":4.111111111111111e15}`, `{"n":` + m + `}`},
		{`{"n":41111111111111110E-1}`, `{"n":` + m + `}`},
		{`{"n":4.111111111111111E+15}`, `{"n":` + m + `}`},
		// Kept: a fraction, a failed Luhn check, a timestamp, too many
		// digits once the exponent applies, a huge exponent, a decimal.
		{`{"n":4111111111111111.5}`, `{"n":4111111111111111.5}`},
		{`{"n":4111111111111112}`, `{"n":4111111111111112}`},
		{`{"ts":1733443200123}`, `{"ts":1733443200123}`},
		{`{"n":4.111111111111111e30}`, `{"n":4.111111111111111e30}`},
		{`{"n":1e400, "m":4111111111111111e-400}`, `{"n":1e400, "m":4111111111111111e-400}`},
		{`{"n":0.4111111111111111}`, `{"n":0.4111111111111111}`},
	}
	r := engine.DefaultRedactor()
	for _, c := range cases {
		got := r.Redact(c.in)
		if got != c.want || !json.Valid([]byte(got)) {
			t.Errorf("Redact(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

// TestRedactJSONInText: a JSON value inside text that is no JSON document
// is redacted as a document is (decoded, value by value): JSON Lines, a
// document followed by a line, a log line's payload, JSON after a prefix
// or a BOM. walk41 #7: an escaped token there ("sk\u002dproj-…",
// "glc_ab\/cd…") was kept, as only a whole document was decoded. A
// prefix that assigns the value to a credential name keeps the line text
// (the rest of it is the secret), and text holding JSON without a secret
// is kept byte for byte.
func TestRedactJSONInText(t *testing.T) {
	m := engine.RedactionMark
	sk := `sk\u002dproj-` + rep("Xy12", 40)
	glc := `glc_ab\/` + rep("cdEf", 40)
	cases := []struct{ name, in, want string }{
		{"json-lines", `{"a":1}` + "\n" + `{"k":"` + sk + `"}`, `{"a":1}` + "\n" + `{"k":"` + m + `"}`},
		{"json-lines-crlf", `{"k":"` + glc + `"}` + "\r\n" + `{"k":"` + sk + `"}` + "\r\n", `{"k":"` + m + `"}` + "\r\n" + `{"k":"` + m + `"}` + "\r\n"},
		{"then-a-line", `{"k":"` + glc + `"}` + "\nexit 0", `{"k":"` + m + `"}` + "\nexit 0"},
		{"pretty-then-a-line", "{\n  \"a\": {\"b\": \"" + sk + "\"}\n}\nexit 0", "{\n  \"a\": {\"b\": \"" + m + "\"}\n}\nexit 0"},
		{"log-line", `2026-12-05 INFO {"k":"` + sk + `"}`, `2026-12-05 INFO {"k":"` + m + `"}`},
		{"log-bracket", `[INFO] {"k":"` + sk + `"} done`, `[INFO] {"k":"` + m + `"} done`},
		{"prefix", `result: {"k":"` + sk + `"}`, `result: {"k":"` + m + `"}`},
		{"two-values", `a=[1] b={"k":"` + sk + `"}`, `a=[1] b={"k":"` + m + `"}`},
		{"bom", "\ufeff" + `{"k":"` + sk + `"}`, "\ufeff" + `{"k":"` + m + `"}`},
		{"escaped-key", `{"a":1}` + "\n" + `{"pass\u0077ord":"hunter22"}`, `{"a":1}` + "\n" + `{"pass\u0077ord":"` + m + `"}`},
		{"line-value", `{"log":"password: abcdefg","exit":0}` + "\n" + `{"a":1}`, `{"log":"password: ` + m + `","exit":0}` + "\n" + `{"a":1}`},
		{"card-number", `{"card": 4111111111111111}` + "\n" + `{"card": 5555555555554444}`, `{"card": "` + m + `"}` + "\n" + `{"card": "` + m + `"}`},
		{"credential-prefix", `token: {"k":"v"}`, `token: ` + m},
		{"text-around", "see ghp_" + rep("16C7e42F292c6912E7710c838347Ae178B4a", 36) + "\n" + `{"k":"` + sk + `"}`, "see " + m + "\n" + `{"k":"` + m + `"}`},
		{"unclosed", `{"a":"x\ny"` + "\n" + `{"k":"` + sk, `{"a":"x\ny"` + "\n" + `{"k":"` + sk},
		{"kept-lines", `{"a":"x\ny"}` + "\n" + `[1, "caf\u00e9\t"]` + "\nexit 0", `{"a":"x\ny"}` + "\n" + `[1, "caf\u00e9\t"]` + "\nexit 0"},
		{"kept-log", `[INFO] {"msg":"a\tb","n":1733443200123}`, `[INFO] {"msg":"a\tb","n":1733443200123}`},
	}
	r := engine.DefaultRedactor()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := r.Redact(c.in)
			if got != c.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
			if again := r.Redact(got); again != got {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

// BenchmarkRedactJSONLines measures the default redactor on tool results
// that are JSON Lines (ten synthetic turns a result, one a line, as a
// structured log writes them), where each line is found and redacted as a
// document.
func BenchmarkRedactJSONLines(b *testing.B) {
	c, _ := synth.New(synth.Config{Messages: 1000, Resources: 1})
	var texts []string
	var lines []string
	for th := range c.All() {
		for _, m := range th.Messages {
			out, _ := json.Marshal(map[string]any{"level": "info", "msg": m.Content, "n": len(lines)})
			if lines = append(lines, string(out)); len(lines) == 10 {
				texts, lines = append(texts, strings.Join(lines, "\n")), nil
			}
		}
	}
	r := engine.DefaultRedactor()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r.Redact(texts[i%len(texts)])
		i++
	}
}
