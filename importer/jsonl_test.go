package importer_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestJSONLEdgeCases(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	long := `{"thread":"t","resource":"r","role":"user","content":"` + strings.Repeat("x", importer.MaxLineBytes) + `"}`
	body := "\ufeff" + `{"thread":"t","resource":"r","role":"user","content":"ok"}
{"thread":"t","resource":"r","role":"user","content":"ok"}
` + long + `
{"thread":"t","resource":"r","role":"assistant","content":"numbers","created_at":1700000000000}
`
	p := writeFile(t, "edge.jsonl", body)
	rep, err := importer.Import(ctx, e, p, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The BOM line is read, two equal lines stay two messages, the long line
	// is skipped and reported, and a numeric created_at is Unix milliseconds.
	if rep.Messages != 3 || rep.Skipped != 1 || rep.Problems[0].Where != "line 3" {
		t.Fatalf("report %+v %v", rep, rep.Problems)
	}
	ms, _ := e.Messages(ctx, "t", 1, 0)
	if ms[2].CreatedAt.UnixMilli() != 1700000000000 || ms[0].ID == ms[1].ID {
		t.Fatalf("messages %+v", ms)
	}
	rep, err = importer.Import(ctx, e, p, importer.Options{})
	if err != nil || rep.Messages != 0 || rep.Duplicates != 3 {
		t.Fatalf("re-import of lines without ids: %+v, %v", rep, err)
	}
}

func TestNothingImported(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	p := writeFile(t, "locomo.json", locomoSample)
	_, err := importer.Import(ctx, e, p, importer.Options{Format: importer.FormatLongMemEval})
	if !errors.Is(err, importer.ErrNothingImported) {
		t.Fatalf("err = %v, want ErrNothingImported", err)
	}
	if _, err := importer.Import(ctx, e, t.TempDir(), importer.Options{}); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("directory: %v", err)
	}
}

// TestNothingImportedCount: a file whose every record was skipped says
// how many in the singular when there is one ("all 1 records of f.jsonl
// were skipped, each for the reason given above" before).
func TestNothingImportedCount(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		lines, want string
	}{
		{"{}\n", "importer: nothing imported: the one record of f.jsonl was skipped, for the reason given above (when it is a parse error, the file may not be jsonl)"},
		{"{}\n{}\n", "importer: nothing imported: all 2 records of f.jsonl were skipped, each for the reason given above (when every reason is a parse error, the file may not be jsonl)"},
	} {
		p := writeFile(t, "f.jsonl", c.lines)
		_, err := importer.Import(ctx, enginetest.MustOpen(t, engine.Config{}), p, importer.Options{Name: "f.jsonl"})
		if !errors.Is(err, importer.ErrNothingImported) || err.Error() != c.want {
			t.Errorf("%q:\n got %v\nwant %s", c.lines, err, c.want)
		}
	}
}

// TestJSONLInvalidText: a line that is not valid UTF-8, or whose escapes
// encode half a surrogate pair, is refused as Append refuses it (issue 12
// item 8) — encoding/json would have stored U+FFFD in its place.
func TestJSONLInvalidText(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	body := `{"thread":"t","resource":"r","id":"ok1","role":"user","content":"caf\u00e9 \ud83d\ude00 \\ud800 is text"}
{"thread":"t","resource":"r","id":"bad1","role":"user","content":"caf` + "\xe9" + `"}
{"thread":"t","resource":"r","id":"bad2","role":"user","content":"half \ud800 pair"}
{"thread":"t","resource":"r","id":"bad3","role":"user","content":"low \udc00 first"}
{"thread":"t","resource":"r","id":"bad4","role":"user","content":"ok","metadata":{"k":"` + "\xff\xfe" + `"}}
`
	p := writeFile(t, "text.jsonl", body)
	rep, err := importer.Import(ctx, e, p, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Messages != 1 || rep.Skipped != 4 {
		t.Fatalf("report %+v %v; want 1 stored, 4 skipped", rep, rep.Problems)
	}
	for i, pr := range rep.Problems {
		if want := fmt.Sprintf("line %d", i+2); pr.Where != want || !errors.Is(pr, importer.ErrInvalidText) {
			t.Fatalf("problem %d: %v (at %s), want ErrInvalidText at %s", i, pr, pr.Where, want)
		}
	}
	ms, err := e.Messages(ctx, "t", 1, 0)
	if err != nil || len(ms) != 1 || ms[0].Content != "café 😀 \\ud800 is text" {
		t.Fatalf("stored %+v, %v", ms, err)
	}
	if _, err := importer.Import(ctx, e, p, importer.Options{Strict: true}); !errors.Is(err, importer.ErrInvalidText) {
		t.Fatalf("strict: err = %v, want ErrInvalidText", err)
	}
	t.Run("LoCoMo", func(t *testing.T) {
		bad := strings.Replace(locomoSample, "adopted a cat", "adopted a c\xffat", 1)
		rep, err := importer.Import(ctx, e, writeFile(t, "bad.json", bad), importer.Options{Format: importer.FormatLoCoMo})
		if len(rep.Problems) != 1 || !errors.Is(rep.Problems[0], importer.ErrInvalidText) || rep.Messages != 0 {
			t.Fatalf("report %+v %v, err %v", rep, rep.Problems, err)
		}
	})
}

// TestJSONLMetadataConflict: re-importing a line with the same id and
// content but other metadata is a conflict, reported and skipped; with the
// same metadata it is a duplicate.
func TestJSONLMetadataConflict(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	line := func(topic string) string {
		return `{"thread":"t","resource":"r","id":"m1","role":"user","content":"hello","metadata":{"topic":"` + topic + `"}}` + "\n"
	}
	if rep, err := importer.Import(ctx, e, writeFile(t, "a.jsonl", line("a")), importer.Options{}); err != nil || rep.Messages != 1 {
		t.Fatalf("first import: %+v, %v", rep, err)
	}
	if rep, err := importer.Import(ctx, e, writeFile(t, "a.jsonl", line("a")), importer.Options{}); err != nil || rep.Duplicates != 1 {
		t.Fatalf("same metadata: %+v, %v", rep, err)
	}
	rep, err := importer.Import(ctx, e, writeFile(t, "b.jsonl", line("b")), importer.Options{})
	if len(rep.Problems) != 1 || !errors.Is(rep.Problems[0], engine.ErrConflict) || rep.Duplicates != 0 {
		t.Fatalf("other metadata: %+v %v, %v; want one ErrConflict", rep, rep.Problems, err)
	}
}

// TestJSONLMetadataNumbers: a metadata number is stored as written. Decoded
// into float64, 1234567890123456789 (a 64-bit id) was stored as
// 1234567890123456800.
func TestJSONLMetadataNumbers(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	line := `{"thread":"t","resource":"r","id":"m1","role":"user","content":"hello","metadata":{"orderId":1234567890123456789,"n":{"id":9007199254740993}}}` + "\n"
	if rep, err := importer.Import(ctx, e, writeFile(t, "a.jsonl", line), importer.Options{}); err != nil || rep.Messages != 1 {
		t.Fatalf("import: %+v, %v", rep, err)
	}
	ms, err := e.Messages(ctx, "t", 1, 1)
	if err != nil || len(ms) != 1 {
		t.Fatalf("messages: %v, %v", ms, err)
	}
	got, err := json.Marshal(ms[0].Metadata)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"n":{"id":9007199254740993},"orderId":1234567890123456789}`; string(got) != want {
		t.Errorf("metadata %s, want %s", got, want)
	}
	if rep, err := importer.Import(ctx, e, writeFile(t, "a.jsonl", line), importer.Options{}); err != nil || rep.Duplicates != 1 {
		t.Fatalf("the same line again: %+v, %v; want a duplicate", rep, err)
	}
}

// TestImportName: with Options.Name, the report and every error call the
// file by that name (the CLI's "stdin"), never by the path it was read from.
func TestImportName(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	good := writeFile(t, "spool-1", `{"thread":"t","resource":"r","role":"user","content":"ok"}
{"thread":"t","resource":"r","role":"bogus","content":"x"}
`)
	rep, err := importer.Import(ctx, e, good, importer.Options{Name: "stdin"})
	if err != nil || rep.File != "stdin" || rep.Format != importer.FormatJSONL || len(rep.Problems) != 1 {
		t.Fatalf("report %+v, %v", rep, err)
	}
	if msg := rep.Problems[0].Error(); !strings.Contains(msg, "stdin line 2") || strings.Contains(msg, good) {
		t.Errorf("problem %q: want it to name stdin, not %s", msg, good)
	}
	for _, body := range []string{"\x00\x01binary", `{"thread":"t","resource":"r","role":"bogus","content":"x"}` + "\n"} {
		p := writeFile(t, "spool-2", body)
		_, err := importer.Import(ctx, e, p, importer.Options{Name: "stdin"})
		if err == nil || !strings.Contains(err.Error(), "stdin") || strings.Contains(err.Error(), p) {
			t.Errorf("Import(%q) = %v: want an error naming stdin, not %s", body, err, p)
		}
	}
}

// TestJSONLProblemsInFileOrder: a record the engine refuses (line 2, held
// in a thread's batch) is reported before a later line that does not parse
// (line 3), and under strict the import stops at line 2: nothing after it
// is stored, and line 3 is neither reported nor counted.
func TestJSONLProblemsInFileOrder(t *testing.T) {
	ctx := context.Background()
	body := `{"thread":"t","resource":"r","role":"user","content":"first"}
{"thread":"t","resource":"r","role":"robot","content":"beep"}
{"thread":"","resource":"r","role":"user","content":"no thread"}
{"thread":"t","resource":"r","role":"user","content":"last"}
`
	p := writeFile(t, "order.jsonl", body)
	wheres := func(rep *importer.Report) (out []string) {
		for _, pr := range rep.Problems {
			out = append(out, pr.Where)
		}
		return out
	}
	rep, err := importer.Import(ctx, enginetest.MustOpen(t, engine.Config{}), p, importer.Options{})
	if err != nil || rep.Messages != 2 || rep.Skipped != 2 || fmt.Sprint(wheres(rep)) != "[line 2 line 3]" {
		t.Fatalf("report %+v problems %v, err %v; want 2 stored, lines 2 and 3 skipped in that order", rep, wheres(rep), err)
	}
	rep, err = importer.Import(ctx, enginetest.MustOpen(t, engine.Config{}), p, importer.Options{Strict: true})
	if err == nil || !strings.Contains(err.Error(), "line 2") || strings.Contains(err.Error(), "line 3") {
		t.Fatalf("strict: error %v, want it to stop at line 2 only", err)
	}
	// The record that stopped a strict import was not skipped: the import
	// stopped there (before, it was counted as skipped).
	if rep.Messages != 1 || rep.Skipped != 0 || len(rep.Problems) != 0 || rep.Stopped != "line 2" {
		t.Fatalf("strict: report %+v problems %v; want 1 stored, none skipped, stopped at line 2", rep, wheres(rep))
	}
}

// TestRecordErrorWording: a record the engine refuses is reported with the
// field as the file's record spells it, without the engine's request path
// (messages[0].…) and without the file named twice; errors.Is and
// errors.As still reach the engine's error.
func TestRecordErrorWording(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		line, field, text string
	}{
		{`{"thread":"t","resource":"r","role":"robot","content":"beep"}`, "role",
			`importer: f.jsonl line 2: invalid role: must be user, assistant or tool, got "robot"`},
		{`{"thread":"t","resource":"r","role":"tool","content":"42"}`, "tool_call_id",
			`importer: f.jsonl line 2: invalid tool_call_id: is required for a tool message`},
		{`{"thread":"t","resource":"r","role":"assistant","tool_calls":[{"id":"c1","name":"f","arguments":[1]}]}`, "tool_calls[0].arguments",
			`importer: f.jsonl line 2: invalid tool_calls[0].arguments: must be a JSON object (or a string holding a model's text that is not one), got a list`},
		{`{"thread":"t","resource":"r","role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":3}}]}`, "tool_calls[0].function.arguments",
			`importer: f.jsonl line 2: invalid tool_calls[0].function.arguments: must be a JSON object (or a string holding a model's text that is not one), got a number`},
		{`{"thread":"t","resource":"r","type":"function_call","call_id":"c1","name":"f","arguments":true}`, "arguments",
			`importer: f.jsonl line 2: invalid arguments: must be a JSON object (or a string holding a model's text that is not one), got true or false`},
		{`{"thread":"bad thread","resource":"r","role":"user","content":"x"}`, "thread",
			`importer: f.jsonl line 2: thread must be 1-128 characters of [A-Za-z0-9_.:@-], and not "." or ".." (which URLs read as dot segments), and not beginning with "erased-" (reserved for erased owners); got " " at byte 3`},
		// No URL can name a thread, resource or message "." or "..".
		{`{"thread":"..","resource":"r","role":"user","content":"x"}`, "thread",
			`importer: f.jsonl line 2: thread must be 1-128 characters of [A-Za-z0-9_.:@-], and not "." or ".." (which URLs read as dot segments), and not beginning with "erased-" (reserved for erased owners); got ".."`},
		{`{"thread":"t","resource":".","role":"user","content":"x"}`, "resource",
			`importer: f.jsonl line 2: resource must be 1-128 characters of [A-Za-z0-9_.:@-], and not "." or ".." (which URLs read as dot segments), and not beginning with "erased-" (reserved for erased owners); got "."`},
		{`{"thread":"t","resource":"r","id":"..","role":"user","content":"x"}`, "id",
			`importer: f.jsonl line 2: id must be 1-128 characters of [A-Za-z0-9_.:@-], and not "." or ".." (which URLs read as dot segments), and not beginning with "erased-" (reserved for erased owners); got ".."`},
		{`{"thread":"t","resource":"r","role":"user","name":"bob\u202e","content":"x"}`, "name",
			`importer: f.jsonl line 2: invalid name: must not contain bidirectional controls, got U+202E`},
		{`{"thread":"t","resource":"r","role":"tool","tool_call_id":"c1","name":"f\n","content":"42"}`, "name",
			`importer: f.jsonl line 2: invalid name: must not contain control characters, got U+000A`},
	} {
		p := writeFile(t, "f.jsonl", `{"thread":"t","resource":"r","role":"user","content":"first"}`+"\n"+c.line+"\n")
		_, err := importer.Import(ctx, enginetest.MustOpen(t, engine.Config{}), p, importer.Options{Strict: true, Name: "f.jsonl"})
		var re *importer.RecordError
		var ve *engine.ValidationError
		if !errors.As(err, &re) || !errors.As(err, &ve) || !errors.Is(err, engine.ErrInvalidInput) {
			t.Fatalf("%s: err %v, want a RecordError wrapping an engine ValidationError", c.line, err)
		}
		if re.Field != c.field || err.Error() != c.text {
			t.Errorf("%s:\n got field %q, %q\nwant field %q, %q", c.line, re.Field, err.Error(), c.field, c.text)
		}
	}
}

// TestJSONLRepeatedKey: a record naming a key twice in one object (at any
// depth) is malformed, reported with the key's path and skipped (or stops
// a strict import), as a request body to the HTTP API is refused. Before,
// encoding/json kept the last one: {"content":"a","content":"b"} stored
// b. A tool call's arguments string holding an object that names a key
// twice is the model's text, stored as that string, as mnemo serve and
// engine.Append store it (it skipped the line, which they stored).
func TestJSONLRepeatedKey(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	body := `{"thread":"t","resource":"r","id":"ok1","role":"user","content":"fine"}
{"thread":"t","resource":"r","id":"d1","role":"user","content":"a","content":"b"}
{"thread":"t","resource":"r","id":"d2","role":"user","content":"x","metadata":{"k":1,"k":2}}
{"thread":"t","resource":"r","id":"d3","role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"city\":\"Lyon\",\"city\":\"Porto\"}"}}]}
`
	p := writeFile(t, "dup.jsonl", body)
	rep, err := importer.Import(ctx, e, p, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Messages != 2 || rep.Skipped != 2 {
		t.Fatalf("report %+v %v; want 2 stored, 2 skipped", rep, rep.Problems)
	}
	ms, err := e.Messages(ctx, "t", 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m := ms[len(ms)-1]; m.ID != "d3" {
		t.Fatalf("last message %s, want d3", m.ID)
	} else if got, want := string(m.ToolCalls[0].Arguments), `"{\"city\":\"Lyon\",\"city\":\"Porto\"}"`; got != want {
		t.Errorf("d3's arguments %s, want the model's text %s", got, want)
	}
	for i, want := range []string{`"content" is given twice`, `"metadata.k" is given twice`} {
		if pr := rep.Problems[i]; pr.Where != fmt.Sprintf("line %d", i+2) || !strings.Contains(pr.Error(), want) {
			t.Fatalf("problem %d: %v at %s, want %s", i, pr, pr.Where, want)
		}
	}
	if _, err := importer.Import(ctx, e, p, importer.Options{Strict: true}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Fatalf("strict: %v", err)
	}
}

// TestJSONLCreatedAtEpoch: created_at in Unix milliseconds (a number or a
// numeric string) must be after the epoch. A negative one (-1, a "no
// time" sentinel) was stored as 1969-12-31T23:59:59.999Z and 0 (an unset
// timestamp in most languages) as 1970-01-01T00:00:00Z; both are skipped
// naming the field and the value. So is a positive number below 1e11
// (1973-03-03T09:46:40Z), which is Unix seconds (1700000000 was stored as
// 1970-01-20T16:13:20Z): the reason says so and gives the milliseconds.
// Before 1973, 1970 and the epoch itself can still be given in RFC 3339.
func TestJSONLCreatedAtEpoch(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		created string
		want    string // the problem's text; "" when the record is stored
		stored  string // the stored created_at, RFC 3339
	}{
		{`-1`, `importer: f.jsonl line 1: created_at: -1 is before 1970-01-01T00:00:00Z (a negative number of Unix milliseconds): write an earlier time in RFC 3339, or leave created_at out for the time of the import`, ""},
		{`"-1"`, `importer: f.jsonl line 1: created_at: "-1" is before 1970-01-01T00:00:00Z (a negative number of Unix milliseconds): write an earlier time in RFC 3339, or leave created_at out for the time of the import`, ""},
		{`-5`, `importer: f.jsonl line 1: created_at: -5 is before 1970-01-01T00:00:00Z (a negative number of Unix milliseconds): write an earlier time in RFC 3339, or leave created_at out for the time of the import`, ""},
		{`0`, `importer: f.jsonl line 1: created_at: 0 is the Unix epoch, what an unset timestamp holds in most languages: write 1970-01-01T00:00:00Z if it is meant, or leave created_at out for the time of the import`, ""},
		{`"0"`, `importer: f.jsonl line 1: created_at: "0" is the Unix epoch, what an unset timestamp holds in most languages: write 1970-01-01T00:00:00Z if it is meant, or leave created_at out for the time of the import`, ""},
		// Unix seconds: a number of milliseconds below 1e11 (1973-03-03)
		// was stored as a time in 1970 (1700000000 as 1970-01-20).
		{`1700000000`, `importer: f.jsonl line 1: created_at: 1700000000 looks like Unix seconds (as milliseconds it is 1970-01-20T16:13:20Z); give milliseconds (1700000000000) or RFC 3339`, ""},
		{`"1700000000"`, `importer: f.jsonl line 1: created_at: "1700000000" looks like Unix seconds (as milliseconds it is 1970-01-20T16:13:20Z); give milliseconds (1700000000000) or RFC 3339`, ""},
		{`99999999999`, `importer: f.jsonl line 1: created_at: 99999999999 looks like Unix seconds (as milliseconds it is 1973-03-03T09:46:39.999Z); give milliseconds (99999999999000) or RFC 3339`, ""},
		{`1`, `importer: f.jsonl line 1: created_at: 1 looks like Unix seconds (as milliseconds it is 1970-01-01T00:00:00.001Z); give milliseconds (1000) or RFC 3339`, ""},
		{`100000000000`, "", "1973-03-03T09:46:40Z"},
		// Fractions and exponents are not whole milliseconds: refused,
		// seconds or not.
		{`1700000000.5`, `importer: f.jsonl line 1: created_at: 1700000000.5 is neither a string nor a whole number of Unix milliseconds`, ""},
		{`1.7e12`, `importer: f.jsonl line 1: created_at: 1.7e12 is neither a string nor a whole number of Unix milliseconds`, ""},
		{`"1700000000.5"`, `importer: f.jsonl line 1: created_at: "1700000000.5" is neither RFC 3339 nor Unix milliseconds`, ""},
		{`1700000000000`, "", "2023-11-14T22:13:20Z"},
		{`"1700000000000"`, "", "2023-11-14T22:13:20Z"},
		{`"1970-01-01T00:00:00Z"`, "", "1970-01-01T00:00:00Z"},
		{`"1969-07-20T20:17:40Z"`, "", "1969-07-20T20:17:40Z"},
	} {
		t.Run(c.created, func(t *testing.T) {
			e := enginetest.MustOpen(t, engine.Config{})
			p := writeFile(t, "f.jsonl", `{"thread":"t","resource":"r","role":"user","content":"x","created_at":`+c.created+"}\n")
			rep, err := importer.Import(ctx, e, p, importer.Options{Name: "f.jsonl"})
			if c.want != "" {
				if !errors.Is(err, importer.ErrNothingImported) || len(rep.Problems) != 1 || rep.Problems[0].Error() != c.want {
					t.Fatalf("created_at %s: report %+v problems %v, err %v\nwant the problem %s", c.created, rep, rep.Problems, err, c.want)
				}
				return
			}
			if err != nil || rep.Messages != 1 {
				t.Fatalf("created_at %s: report %+v problems %v, err %v; want it stored", c.created, rep, rep.Problems, err)
			}
			ms, err := e.Messages(ctx, "t", 1, 0)
			if err != nil || len(ms) != 1 {
				t.Fatalf("messages %+v, %v", ms, err)
			}
			if got := ms[0].CreatedAt.UTC().Format(time.RFC3339Nano); got != c.stored {
				t.Errorf("created_at %s stored as %s, want %s", c.created, got, c.stored)
			}
		})
	}
}

// TestJSONLSyntaxErrorWhere: a record that is not JSON is reported with the
// column of the byte encoding/json stopped at (1-based, in the line as the
// file holds it: leading blanks and a first line's byte-order mark count)
// and, when a member was read before it, that member's path. Before, only
// "invalid record: invalid character '}' looking for beginning of value".
func TestJSONLSyntaxErrorWhere(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name, line, want string
	}{
		{"AfterKey", `{"thread":"t","resource":"r","role":"user","content":}`,
			`importer: f.jsonl line 2: invalid record at column 54 (after "content"): invalid character '}' looking for beginning of value`},
		{"TrailingComma", `{"thread":"t","resource":"r","role":"user","content":"x",}`,
			`importer: f.jsonl line 2: invalid record at column 58 (after "content"): invalid character '}' looking for beginning of object key string`},
		{"Nested", `{"thread":"t","resource":"r","role":"user","content":"x","metadata":{"k":[1,2,]}}`,
			`importer: f.jsonl line 2: invalid record at column 79 (after "metadata.k"): invalid character ']' looking for beginning of value`},
		{"NoKeyYet", `{,"thread":"t"}`,
			`importer: f.jsonl line 2: invalid record at column 2: invalid character ',' looking for beginning of object key string`},
		{"LeadingBlanks", "  \t" + `{"thread":"t" "role":"user"}`,
			`importer: f.jsonl line 2: invalid record at column 18 (after "thread"): invalid character '"' after object key:value pair`},
		// Files that each start with one, joined by cat: encoding/json
		// named the mark's first byte as Latin-1 ('ï').
		{"ByteOrderMarkLaterLine", "\ufeff" + `{"thread":"t","resource":"r","role":"user","content":"x"}`,
			`importer: f.jsonl line 2: invalid record at column 1: a byte-order mark (U+FEFF), which only a file's first line may start with (files joined by cat?): remove it`},
		// Only JSON whitespace (space, tab, CR, LF) may surround a record;
		// unicode.IsSpace trimmed these too, and the line was stored.
		{"TrailingVerticalTab", `{"thread":"t","resource":"r","role":"user","content":"x"}` + "\v",
			`importer: f.jsonl line 2: invalid record at column 58: '\v' after the record's end (only spaces, tabs and line ends may follow a record)`},
		{"TrailingNEL", `{"thread":"t","resource":"r","role":"user","content":"x"}` + "\u0085",
			`importer: f.jsonl line 2: invalid record at column 58: '\u0085' after the record's end (only spaces, tabs and line ends may follow a record)`},
		{"TrailingNoBreakSpace", `{"thread":"t","resource":"r","role":"user","content":"x"} ` + "\u00a0",
			`importer: f.jsonl line 2: invalid record at column 59: '\u00a0' after the record's end (only spaces, tabs and line ends may follow a record)`},
		{"LeadingNoBreakSpace", "\u00a0" + `{"thread":"t","resource":"r","role":"user","content":"x"}`,
			`importer: f.jsonl line 2: invalid record at column 1: invalid character '\u00a0' (U+00A0) looking for beginning of value`},
		{"OnlyFormFeed", "\f",
			`importer: f.jsonl line 2: invalid record at column 1: invalid character '\f' looking for beginning of value`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, "f.jsonl", `{"thread":"t","resource":"r","role":"user","content":"first"}`+"\n"+c.line+"\n")
			_, err := importer.Import(ctx, enginetest.MustOpen(t, engine.Config{}), p, importer.Options{Strict: true, Name: "f.jsonl"})
			if err == nil || err.Error() != c.want {
				t.Fatalf("%s:\n got %v\nwant %s", c.line, err, c.want)
			}
		})
	}
	t.Run("ByteOrderMark", func(t *testing.T) {
		p := writeFile(t, "f.jsonl", "\ufeff"+`{"thread":}`+"\n")
		_, err := importer.Import(ctx, enginetest.MustOpen(t, engine.Config{}), p, importer.Options{Strict: true, Name: "f.jsonl"})
		want := `importer: f.jsonl line 1: invalid record at column 14 (after "thread"): invalid character '}' looking for beginning of value`
		if err == nil || err.Error() != want {
			t.Fatalf("got %v\nwant %s", err, want)
		}
	})
}

// TestJSONLTypeErrorWording: a member of the wrong JSON type is reported
// with its name and both types in the file's words. Before, encoding/json's
// Go words came through: "json: cannot unmarshal number into Go struct
// field jsonlRecord.thread of type string", and for tool_calls the whole Go
// struct type.
func TestJSONLTypeErrorWording(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		member, want string
	}{
		{`"thread":5`, `"thread" must be a string, got a number`},
		{`"thread":"t","role":["user"]`, `"role" must be a string, got a list`},
		{`"thread":"t","content":true`, `"content" must be a string or a list of parts, got true or false`},
		{`"thread":"t","metadata":[1]`, `"metadata" must be an object, got a list`},
		{`"thread":"t","tool_calls":{"a":1}`, `tool_calls: must be a list of tool calls, got an object`},
		{`"thread":"t","tool_calls":[3]`, `tool_calls: each tool call must be an object, got a number`},
		{`"thread":"t","tool_calls":[{"id":5}]`, `tool_calls: "id" must be a string, got a number`},
		{`"thread":"t","tool_calls":[{"id":"c","function":{"name":"f","arguments":5}}]`, `invalid tool_calls[0].function.arguments: must be a JSON object (or a string holding a model's text that is not one), got a number`},
	} {
		line := `{` + c.member + `,"resource":"r","role":"user","content":"x"}`
		if strings.Contains(c.member, `"role"`) || strings.Contains(c.member, `"content"`) {
			line = `{` + c.member + `,"resource":"r"}`
		}
		p := writeFile(t, "f.jsonl", line+"\n")
		_, err := importer.Import(ctx, enginetest.MustOpen(t, engine.Config{}), p, importer.Options{Strict: true, Name: "f.jsonl"})
		if want := "importer: f.jsonl line 1: " + c.want; err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", line, err, want)
		}
	}
}

// TestJSONLRecordWrongType: a line that is JSON but not an object, or
// not JSON at all (plain text), and a number out of range inside a
// member, are said in the file's words.
// Before, encoding/json's Go words came through ("json: cannot unmarshal
// array into Go value of type importer.jsonlRecord"), and a number out
// of range deep in metadata made metadata itself "must be a number, got
// the number 1e999, out of range".
func TestJSONLRecordWrongType(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		line, want string
	}{
		{`[1]`, `a record must be a JSON object, got a list`},
		{`"x"`, `a record must be a JSON object, got a string`},
		{`5`, `a record must be a JSON object, got a number`},
		{`true`, `a record must be a JSON object, got true or false`},
		{`null`, `a record must be a JSON object, got null`},
		// Plain text (cli60): encoding/json said "invalid character 'h'
		// in literal true (expecting 'r')", "looking for beginning of value".
		{`the user said hi`, `a record must be a JSON object, got text that is not JSON (the line starts with 't'; each line of a JSONL file is one JSON object, {"thread": …, "role": …, "content": …})`},
		{`hello world`, `a record must be a JSON object, got text that is not JSON (the line starts with 'h'; each line of a JSONL file is one JSON object, {"thread": …, "role": …, "content": …})`},
		{`  # a comment`, `a record must be a JSON object, got text that is not JSON (the line starts with '#'; each line of a JSONL file is one JSON object, {"thread": …, "role": …, "content": …})`},
		{`{"thread":"t","resource":"r","role":"user","content":"x","metadata":{"k":[1,{"z":1e999}]}}`, `"metadata" holds the number 1e999, out of the range of a 64-bit float`},
	} {
		p := writeFile(t, "f.jsonl", c.line+"\n")
		_, err := importer.Import(ctx, enginetest.MustOpen(t, engine.Config{}), p, importer.Options{Strict: true, Name: "f.jsonl"})
		if want := "importer: f.jsonl line 1: " + c.want; err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", c.line, err, want)
		}
	}
}

// TestJSONLUnknownMember: a member the format does not have is reported
// with its line and name, and the member it most likely meant, or the
// format's members when none is close. Before, it was ignored: a misspelt
// "content" read as `"content" is required`, a misspelt "created_at"
// stored the time of the import without a word.
func TestJSONLUnknownMember(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		line, want string
	}{
		{`{"thread":"t","resource":"r","role":"user","contnet":"hi"}`, `unknown field "contnet" (did you mean "content"?)`},
		{`{"thread":"t","resource":"r","role":"user","content":"hi","createdAt":"2024-01-02T03:04:05Z"}`, `unknown field "createdAt" (did you mean "created_at"?)`},
		{`{"thread":"t","resource":"r","role":"user","text":"hi"}`,
			`unknown field "text" (a record has thread, resource, title, idle_ttl, id, role, content, name, tool_calls, tool_call_id, metadata and created_at)`},
		{`{"thread":"t","resource":"r","role":"user","content":"hi","metadata":{"contnet":1},"sesion":"s1"}`, `unknown field "sesion" (a record has thread, resource, title, idle_ttl, id, role, content, name, tool_calls, tool_call_id, metadata and created_at)`},
	} {
		body := `{"thread":"t","resource":"r","role":"user","content":"a"}` + "\n" +
			`{"thread":"t","resource":"r","role":"user","content":"b"}` + "\n" + c.line + "\n"
		p := writeFile(t, "f.jsonl", body)
		_, err := importer.Import(ctx, enginetest.MustOpen(t, engine.Config{}), p, importer.Options{Strict: true, Name: "f.jsonl"})
		if want := "importer: f.jsonl line 3: " + c.want; err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", c.line, err, want)
		}
	}
}

// TestJSONLResourceOfThread pins what docs/cli.md's import formats say of
// "resource": a line may leave it out when its thread exists (earlier in
// the file or stored before), and is stored under the thread's resource;
// a line naming another resource than its thread's is skipped with both
// of its own ids named, not the resource that owns the thread; a line of
// a new thread without one is skipped naming the thread.
func TestJSONLResourceOfThread(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	body := `{"thread":"t","resource":"alice","role":"user","content":"a"}
{"thread":"t","role":"user","content":"b"}
{"thread":"t","resource":"bob","role":"user","content":"c"}
{"thread":"u","role":"user","content":"d"}
`
	rep, err := importer.Import(ctx, e, writeFile(t, "r.jsonl", body), importer.Options{Name: "r.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rep.Messages, 2; got != want || len(rep.Problems) != 2 {
		t.Fatalf("stored %d, problems %v; want %d stored, 2 problems", got, rep.Problems, want)
	}
	th, err := e.GetThread(ctx, "t")
	if err != nil || th.ResourceID != "alice" {
		t.Fatalf("thread t: %+v, %v; want resource alice", th, err)
	}
	for i, want := range []string{
		`importer: r.jsonl line 3: thread belongs to another resource: "t" is not a thread of resource "bob"`,
		`importer: r.jsonl line 4: invalid resource: is required to create thread "u"`,
	} {
		if got := rep.Problems[i].Error(); got != want || strings.Contains(got, "alice") {
			t.Errorf("problem %d: %q, want %q", i, got, want)
		}
	}
}

// TestJSONLUnknownToolCallMember: a tool call (or its "function") naming a
// member neither OpenAI's shape nor mnemo's has skips the line naming the
// call and the member. Before, it was ignored: "argumets" stored the call
// with {} as its arguments.
func TestJSONLUnknownToolCallMember(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		calls, want string
	}{
		{`[{"id":"c1","name":"f","arguments":{}},{"id":"c2","name":"g","argumets":{"q":1}}]`, `tool_calls[1]: unknown field "argumets" (did you mean "arguments"?)`},
		{`[{"id":"c1","type":"function","function":{"name":"f","args":"{}"}}]`, `tool_calls[0].function: unknown field "args" (a function has name and arguments)`},
		{`[{"id":"c1","name":"f","arguments":{},"extra":1}]`, `tool_calls[0]: unknown field "extra" (a tool call has id, type, function, name and arguments)`},
	} {
		line := `{"thread":"t","resource":"r","role":"assistant","content":"","tool_calls":` + c.calls + `}`
		p := writeFile(t, "f.jsonl", line+"\n")
		_, err := importer.Import(ctx, enginetest.MustOpen(t, engine.Config{}), p, importer.Options{Strict: true, Name: "f.jsonl"})
		if want := "importer: f.jsonl line 1: " + c.want; err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", c.calls, err, want)
		}
	}
}
