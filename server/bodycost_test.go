package server

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// joinN is n copies of s joined by commas.
func joinN(s string, n int) string {
	return strings.TrimSuffix(strings.Repeat(s+",", n), ",")
}

// costlyBodies are append bodies of up to 4 MiB (the default body bound)
// whose checking cost most, by shape: a million empty messages
// (walk34's), the most tool calls the limits let through (1000 messages
// of 128) with a nested member each, and messages whose metadata holds
// many keys or many arrays.
func costlyBodies() []struct{ name, body string } {
	msg := func(extra string) string { return `{"role":"user","content":"x"` + extra + `}` }
	return []struct{ name, body string }{
		{"EmptyObjects1M", `{"messages":[` + joinN("{}", 1000000) + `]}`},
		{"ToolCalls1000x128", `{"messages":[` + joinN(`{"role":"assistant","toolCalls":[`+joinN(`{"function":{"name":"f"}}`, 128)+`]}`, 1000) + `]}`},
		{"MetadataKeys", `{"messages":[` + joinN(msg(`,"metadata":{`+keys(4000)+`}`), 60) + `]}`},
		{"MetadataArrays", `{"messages":[` + msg(`,"metadata":{"a":[`+joinN("[]", 1300000)+`]}`) + `]}`},
	}
}

func keys(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":0`, i)
	}
	return b.String()
}

// BenchmarkDecodeAppend: the cost of checking and decoding an append's
// body of each costly shape, as POST /v1/threads/{thread}/messages does
// before the engine sees it (BENCHMARKS.md, "Request bodies").
func BenchmarkDecodeAppend(b *testing.B) {
	l := engine.Limits{MaxMessagesPerAppend: engine.DefaultMaxMessagesPerAppend, MaxToolCalls: engine.DefaultMaxToolCalls}
	for _, c := range costlyBodies() {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.body)))
			for b.Loop() {
				r := httptest.NewRequest("POST", "/v1/threads/t/messages", strings.NewReader(c.body))
				var v AppendBody
				_ = decodeBounded(r, &v, &l)
			}
		})
	}
}

// TestCostlyBodiesFit: the benchmark's bodies are within the default body
// bound, so a client can send each.
func TestCostlyBodiesFit(t *testing.T) {
	for _, c := range costlyBodies() {
		if len(c.body) > DefaultMaxBodyBytes {
			t.Errorf("%s: %d bytes, over %d", c.name, len(c.body), DefaultMaxBodyBytes)
		}
	}
}

// TestAppendCountedFirst: an append body whose messages, or a message's
// tool calls, pass their bound is refused with the engine's words after a
// count of its elements, none of them decoded: 100,000 empty messages
// cost a handful of allocations (the body, the scan), where the decoding
// and the member checks made about two million (3 s of CPU; a million
// took 29 s).
func TestAppendCountedFirst(t *testing.T) {
	l := engine.Limits{MaxMessagesPerAppend: engine.DefaultMaxMessagesPerAppend, MaxToolCalls: engine.DefaultMaxToolCalls}
	for _, c := range []struct {
		name, body, field, detail string
	}{
		{"Messages", `{"messages":[` + joinN("{}", 100000) + `]}`, "messages", "at most 1000 messages per append, got 100000"},
		{"ToolCalls", `{"messages":[{"role":"assistant","toolCalls":[` + joinN("{}", 128) + `]},{"toolCalls":[` + joinN("{}", 100000) + `]}]}`,
			"messages[1].toolCalls", "at most 128 tool calls, got 100000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			allocs := testing.AllocsPerRun(1, func() {
				r := httptest.NewRequest("POST", "/v1/threads/t/messages", strings.NewReader(c.body))
				var v AppendBody
				err = decodeBounded(r, &v, &l)
			})
			p := Describe(err)
			if p.Status != 400 || p.Field != c.field || !strings.Contains(p.Detail, c.detail) {
				t.Errorf("%d, field %q, %q; want 400, field %q, %q", p.Status, p.Field, p.Detail, c.field, c.detail)
			}
			if allocs > 1000 {
				t.Errorf("%.0f allocations: the elements were decoded or walked", allocs)
			}
		})
	}
}

// TestMetadataMeasuredFirst: an append body whose message's metadata
// passes MaxMetadataBytes, encoded as stored, is refused with the
// engine's words before it is decoded: 1.3 million empty arrays cost a
// handful of allocations, where decoding them into map[string]any made
// 1.3 million (187 MB, 1.7 s). Metadata within the bound as stored but
// not as sent (Python's json.dumps escapes every non-ASCII character,
// six bytes for three; whitespace) is still taken.
func TestMetadataMeasuredFirst(t *testing.T) {
	l := engine.Limits{MaxMessagesPerAppend: engine.DefaultMaxMessagesPerAppend, MaxToolCalls: engine.DefaultMaxToolCalls}
	arrays := `{"messages":[{"role":"user","content":"x"},{"role":"user","content":"y","Metadata":{"a":[` + joinN("[]", 1300000) + `]}}]}`
	var err error
	allocs := testing.AllocsPerRun(1, func() {
		r := httptest.NewRequest("POST", "/v1/threads/t/messages", strings.NewReader(arrays))
		var v AppendBody
		err = decodeBounded(r, &v, &l)
	})
	want := fmt.Sprintf("at most %d bytes as JSON, got %d", engine.DefaultMaxMetadataBytes, len(`{"a":[]}`)+2*1300000+1300000-1)
	if p := Describe(err); p.Status != 400 || p.Field != "messages[1].metadata" || !strings.Contains(p.Detail, want) {
		t.Errorf("%d, field %q, %q; want 400, field messages[1].metadata, %q", p.Status, p.Field, p.Detail, want)
	}
	if allocs > 1000 {
		t.Errorf("%.0f allocations: the metadata was decoded", allocs)
	}
	// 5000 characters of 3 bytes: 15,000 stored, 30,000 sent escaped.
	escaped := `{"messages":[{"role":"user","content":"x","metadata":{ "note" : "` + strings.Repeat(`\u4e2d`, 5000) + `" }}]}`
	r := httptest.NewRequest("POST", "/v1/threads/t/messages", strings.NewReader(escaped))
	var v AppendBody
	if err := decodeBounded(r, &v, &l); err != nil {
		t.Errorf("metadata of 15,000 bytes as stored, 30,000 as sent: %v", err)
	}
}
