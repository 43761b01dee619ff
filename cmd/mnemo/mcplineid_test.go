package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/mcpserver"
)

// FuzzLineIDScan: on a line that is one JSON value, lineIDScan (fed in
// chunks of any size) finds the top-level "id" as encoding/json does (the
// last of duplicates, a string or number of up to maxScanValue bytes, else
// nil) and whether "id" and "method" members are there.
func FuzzLineIDScan(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"x","params":{"id":2,"a":[{"id":3}]},"id":"a\"b,}"}`,
		`{"method":"notifications/initialized"}`,
		`{"\u0069d" : -1.5e3 , "id":{"o":1}}`,
		`{"id":null}`, `[{"id":1}]`, `"id"`, ` { "x" : "\\", "id" : "\\\"" } `,
		`{"params":{"s":"} ] , \"id\":9"},"id":7}`,
	} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, line []byte, step uint8) {
		var m map[string]json.RawMessage
		if !json.Valid(line) {
			return
		}
		var s lineIDScan
		for b, n := line, int(step)+1; len(b) > 0; b = b[min(n, len(b)):] {
			s.feed(b[:min(n, len(b))])
		}
		if json.Unmarshal(line, &m) != nil { // not an object
			if s.hasID || s.hasMethod || s.id != nil {
				t.Fatalf("%q: not an object, scan found id %q (%v) method %v", line, s.id, s.hasID, s.hasMethod)
			}
			return
		}
		id, hasID := m["id"]
		_, hasMethod := m["method"]
		want := mcpserver.MessageID([]byte(`{"id":` + string(id) + `}`))
		if !hasID || len(id) > maxScanValue {
			want = nil
		}
		if s.hasID != hasID || s.hasMethod != hasMethod || !bytes.Equal(s.id, want) {
			t.Fatalf("%q: scan id %q (%v) method %v; encoding/json id %q (%v) method %v",
				line, s.id, s.hasID, s.hasMethod, want, hasID, hasMethod)
		}
	})
}

// TestMCPStdioLongLineID: a request on a line over maxMCPLine (17 MiB of
// content, "id" written last as the TS SDK writes it) is answered -32600
// with its id, and the next request on the stream is answered; a
// notification over the bound is not answered but logged. Before, the
// error's id was null: the client never matched it to its request (the
// TS SDK timed out after 60 s; a client without a timeout hung).
func TestMCPStdioLongLineID(t *testing.T) {
	big := strings.Repeat("x", 17<<20)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"method":"tools/call","params":{"name":"memory_append","arguments":{"threadId":"t1","resourceId":"me","messages":[{"role":"user","content":"` + big + `"}]}},"jsonrpc":"2.0","id":"big-7"}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"s":"` + big + `"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	}, "\n") + "\n"
	var out, errOut strings.Builder
	m := &Main{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errOut, Getenv: func(k string) string {
		if k == "MNEMO_EMBEDDER" {
			return "hash-384"
		}
		return ""
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if c := m.Run(ctx, []string{"--dir", t.TempDir(), "mcp", "--resources", "me"}); c != 0 {
		t.Fatalf("mnemo mcp exit %d; stderr %s", c, errOut.String())
	}
	answers := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code    int
				Message string
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		if r.Error != nil {
			answers[string(r.ID)] = r.Error.Message
		} else {
			answers[string(r.ID)] = "ok"
		}
	}
	want := map[string]string{"1": "ok", `"big-7"`: "Invalid Request: the line is over 16777216 bytes", "2": "ok"}
	if len(answers) != len(want) {
		t.Fatalf("answers %v, want %v", answers, want)
	}
	for id, msg := range want {
		if answers[id] != msg {
			t.Fatalf("answer to %s: %q, want %q (all: %v)", id, answers[id], msg, answers)
		}
	}
	if !strings.Contains(errOut.String(), "notification was dropped") {
		t.Fatalf("the over-long notification is not logged: %s", errOut.String())
	}
}
