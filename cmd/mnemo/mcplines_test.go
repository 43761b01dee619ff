package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/mcpserver"
)

// TestMCPStdioBadLines: a line of `mnemo mcp`'s input that the go-sdk
// cannot read is answered with a JSON-RPC error (-32700 for one that is not
// JSON, -32600 with the line's id when it has one) and the session goes on:
// the requests after it are answered, exit status 0. Text that is not valid
// UTF-8, or half a surrogate pair, is refused and nothing is stored (as
// /mcp of mnemo serve refuses it). Before, the first such line ended the
// session (exit 1, "mcp: invalid character …") and a \xff byte was stored
// as U+FFFD.
func TestMCPStdioBadLines(t *testing.T) {
	appendLine := func(id, content string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"memory_append","arguments":{"threadId":"t1","resourceId":"me","messages":[{"role":"user","content":"` + content + `"}]}}}`
	}
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{not json`,
		`{"jsonrpc":"2.0","id":20,"method":"tools/list"} trailing`,
		`{"jsonrpc":"1.0","id":21,"method":"tools/list"}`,
		`"a string"`,
		`[]`,
		`{"jsonrpc":"2.0","id":{"an":"object"},"method":"tools/list"}`,
		appendLine(`"22"`, "bad \xff byte"),
		appendLine("23", `half \ud800 a pair`),
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		appendLine("3", "the spare key is under the blue flowerpot"),
	}, "\n") + "\n"
	var out strings.Builder
	m := &Main{Stdin: strings.NewReader(in), Stdout: &out, Stderr: io.Discard, Getenv: func(k string) string {
		if k == "MNEMO_EMBEDDER" {
			return "hash-384"
		}
		return ""
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if c := m.Run(ctx, []string{"--dir", t.TempDir(), "mcp", "--resources", "me"}); c != 0 {
		t.Fatalf("mnemo mcp exit %d; output %s", c, out.String())
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r struct {
			ID     json.RawMessage     `json:"id"`
			Result json.RawMessage     `json:"result"`
			Error  *struct{ Code int } `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		switch {
		case r.Error != nil:
			got = append(got, string(r.ID)+" error "+strconv.Itoa(r.Error.Code))
		case strings.Contains(string(r.Result), `"stored":1`):
			got = append(got, string(r.ID)+" stored")
		default:
			got = append(got, string(r.ID)+" ok")
		}
	}
	want := []string{"1 ok", "null error -32700", "null error -32700", "21 error -32600", "null error -32600",
		"null error -32600", "null error -32600", `"22" error -32600`, "23 error -32600", "2 ok", "3 stored"}
	// Answers come in any order: the SDK handles requests concurrently.
	slices.Sort(got)
	slices.Sort(want)
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Fatalf("answers:\n%s\nwant:\n%s\noutput: %s", strings.Join(got, "; "), strings.Join(want, "; "), out.String())
	}
	if !strings.Contains(out.String(), `"seqs":[1]`) {
		t.Fatalf("the good append is not the thread's first message: %s", out.String())
	}
}

// TestMCPLineTooDeep: a line nested deeper than the SDK reads
// (mcpserver.MaxDepth, 1,000 levels) is answered -32700 naming the limit
// and the byte of the bracket that passes it, as /mcp of mnemo serve
// answers such a body, whether or not encoding/json (10,000 levels) would
// read it; one nested MaxDepth levels is the SDK's to read. Before, a line
// of 1,001 to 10,000 levels was answered -32600 in the SDK's words
// ("unmarshaling jsonrpc message: json: exceeded maximum nesting depth of
// 1000") and a deeper one "deeper than 10000 levels".
func TestMCPLineTooDeep(t *testing.T) {
	const head = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`
	for _, c := range []struct {
		name  string
		depth int // the line's, the message's object one of them
	}{
		{"Deepest", mcpserver.MaxDepth},
		{"OneTooDeep", mcpserver.MaxDepth + 1},
		{"PastEncodingJSON", 10001},
	} {
		t.Run(c.name, func(t *testing.T) {
			line := head + strings.Repeat("[", c.depth-1) + strings.Repeat("]", c.depth-1) + `}`
			got := string(badLine([]byte(line)))
			if c.depth <= mcpserver.MaxDepth {
				if got != "" {
					t.Fatalf("depth %d: %s; want it passed to the SDK", c.depth, got)
				}
				return
			}
			want := fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line nests arrays or objects deeper than 1000 levels, the most it may (at byte %d)"}}`+"\n", len(head)+mcpserver.MaxDepth-1)
			if got != want {
				t.Fatalf("depth %d:\n%s\nwant\n%s", c.depth, got, want)
			}
		})
	}
	if got := string(badLine([]byte(`{not json`))); !strings.Contains(got, "not one JSON value") {
		t.Fatalf("not JSON: %s", got)
	}
}

// TestMCPLineTrailingData: a line with data after its message or batch (a
// "}" too many, a second message) is a -32700 naming the byte, as /mcp of
// mnemo serve answers such a body. It was refused already, as "the line
// is not one JSON value", without saying where.
func TestMCPLineTrailingData(t *testing.T) {
	const msg = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for _, c := range []struct{ line, want string }{
		{msg + "}\n", "Parse error: the line is not one JSON value: unexpected data after the JSON value at byte 46"},
		{"[" + msg + "]]\n", "Parse error: the line is not one JSON value: unexpected data after the JSON value at byte 48"},
		{msg + " " + msg + "\n", "Parse error: the line is not one JSON value: unexpected data after the JSON value at byte 47"},
		{msg + " \t\r\n", ""},
	} {
		got := string(badLine([]byte(c.line)))
		if c.want == "" {
			if got != "" {
				t.Errorf("%q: %s; want it passed to the SDK", c.line, got)
			}
			continue
		}
		want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"` + c.want + `"}}` + "\n"
		if got != want {
			t.Errorf("%q:\n%s\nwant\n%s", c.line, got, want)
		}
	}
}

// TestMCPLineNotJSONRPC: a line that is valid JSON but no JSON-RPC 2.0
// message or batch is a -32600 naming what is wrong in JSON's words, with
// the message's id when it gives a string or number, as /mcp of mnemo
// serve answers such a body (mcpserver.FrameProblem, readme71 F1). Before,
// the words were the SDK's, naming Go's types: "unmarshaling jsonrpc
// message: json: cannot unmarshal string into Go value of type
// jsonrpc2.wireDecode".
func TestMCPLineNotJSONRPC(t *testing.T) {
	for _, c := range []struct{ line, id, want string }{
		{`{}`, "null", `the message is not JSON-RPC 2.0: its \"jsonrpc\" member is missing`},
		{`[]`, "null", `the line is an empty batch: send one or more JSON-RPC messages`},
		{`"x"`, "null", `the line is a string, not a JSON-RPC message (an object) or a batch of them (an array)`},
		{`42`, "null", `the line is a number, not a JSON-RPC message (an object) or a batch of them (an array)`},
		{`[{"jsonrpc":"2.0","id":1,"method":"tools/list"},7]`, "null", `element 1 of the batch: it is a number, not a JSON-RPC message (an object)`},
		{`{"jsonrpc":"1.0","id":7,"method":"tools/list"}`, "7", `the message is not JSON-RPC 2.0: its \"jsonrpc\" member is \"1.0\", not \"2.0\"`},
		{`{"jsonrpc":"2.0","id":8,"method":5}`, "8", `\"method\" must be a string, not a number`},
	} {
		got := string(badLine([]byte(c.line + "\n")))
		want := `{"jsonrpc":"2.0","id":` + c.id + `,"error":{"code":-32600,"message":"Invalid Request: ` + c.want + `"}}` + "\n"
		if got != want {
			t.Errorf("%s:\n%s\nwant\n%s", c.line, got, want)
		}
	}
}

// TestMCPLineTextAsGiven: the error answering a line the SDK cannot read
// gives its id back, and names what the line held, as the line wrote
// them: the id "<a&b>" is "<a&b>", and the version "<1>" is named so.
// Before, json.Marshal wrote the id "\u003ca\u0026b\u003e" (the same
// value, other text) and the message "\u003c1\u003e".
func TestMCPLineTextAsGiven(t *testing.T) {
	got := string(badLine([]byte(`{"jsonrpc":"<1>","id":"<a&b>","method":"tools/list"}`)))
	if !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":"<a&b>","error":{"code":-32600,"message":"Invalid Request: `) ||
		!strings.Contains(got, `<1>`) || strings.Contains(got, `\u00`) {
		t.Errorf("got %s; want the id and the version as the line gave them", got)
	}
}

// TestMCPLineBOM: a line that begins with a UTF-8 byte-order mark is read
// as the message after it, as /mcp and /v1 read such a body, and the
// session goes on; one that begins with a UTF-16 mark is a -32700 naming
// it. Before (readme57), both were "the line is not one JSON value".
func TestMCPLineBOM(t *testing.T) {
	in := strings.Join([]string{
		"\uFEFF" + `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		"\xFF\xFE{\x00}\x00",
		"\uFEFF" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	}, "\n") + "\n"
	var out strings.Builder
	m := &Main{Stdin: strings.NewReader(in), Stdout: &out, Stderr: io.Discard, Getenv: func(k string) string {
		if k == "MNEMO_EMBEDDER" {
			return "hash-384"
		}
		return ""
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if c := m.Run(ctx, []string{"--dir", t.TempDir(), "mcp", "--resources", "me"}); c != 0 {
		t.Fatalf("mnemo mcp exit %d; output %s", c, out.String())
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int
				Message string
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		if r.Error != nil {
			got = append(got, fmt.Sprintf("%s error %d %s", r.ID, r.Error.Code, r.Error.Message))
		} else {
			got = append(got, string(r.ID)+" ok")
		}
	}
	want := []string{"1 ok", "2 ok", "null error -32700 Parse error: the line is UTF-16 (it begins with the byte-order mark FFFE): send JSON as UTF-8"}
	slices.Sort(got)
	slices.Sort(want)
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Fatalf("answers:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestMCPLineInvalidTextID: a line whose text is not valid UTF-8 (a lone
// surrogate escape, a \xff byte) is answered -32600 with the request's id
// when it is a string or a number, wherever it stands among the members
// (null when there is none or it is an object), its members in the order
// jsonrpc, id, error, as /mcp of mnemo serve answers such a body
// (mcpserver TestHTTPBodyInvalidTextID; one writer: mcpserver.ErrorAnswer).
func TestMCPLineInvalidTextID(t *testing.T) {
	call := func(id, content string) string {
		return `{"jsonrpc":"2.0",` + id + `"method":"tools/call","params":{"name":"memory_append","arguments":{"threadId":"n3","messages":[{"role":"user","content":"` + content + `"}]}}}`
	}
	for _, c := range []struct{ name, line, want string }{
		{"SurrogateNumberID", call(`"id":16,`, `lone \ud800 surrogate`),
			`{"jsonrpc":"2.0","id":16,"error":{"code":-32600,"message":"Invalid Request: the message is not valid UTF-8: \\ud800 at byte 152 is half of a UTF-16 surrogate pair"}}`},
		{"ByteStringID", call(`"id":"s-<1>",`, "bad \xff byte"),
			`{"jsonrpc":"2.0","id":"s-<1>","error":{"code":-32600,"message":"Invalid Request: the message is not valid UTF-8: invalid byte 0xff at byte 156"}}`},
		{"IDLast", `{"jsonrpc":"2.0","method":"tools/list","params":{"s":"\udc00"},"id":-2.5}`,
			`{"jsonrpc":"2.0","id":-2.5,"error":{"code":-32600,"message":"Invalid Request: the message is not valid UTF-8: \\udc00 at byte 54 is half of a UTF-16 surrogate pair"}}`},
		{"Notification", `{"jsonrpc":"2.0","method":"notifications/x","params":{"s":"\ud800"}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the message is not valid UTF-8: \\ud800 at byte 59 is half of a UTF-16 surrogate pair"}}`},
		{"ObjectID", `{"jsonrpc":"2.0","id":{"a":1},"method":"x","params":{"s":"\ud800"}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the message is not valid UTF-8: \\ud800 at byte 58 is half of a UTF-16 surrogate pair"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := string(badLine([]byte(c.line))); got != c.want+"\n" {
				t.Fatalf("%s\nwant\n%s", got, c.want)
			}
		})
	}
}
