package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/mcpserver"
	"github.com/mnemo-go/mnemo/server"
)

// TestMessagesResourcePage: the thread-messages resource answers the
// latest page (engine.DefaultPageLimit turns), not the whole thread, and
// says where older turns start (nextBeforeSeq).
func TestMessagesResourcePage(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t)
	alice, _, _ := principals(t)
	msgs := make([]engine.Message, 130)
	for i := range msgs {
		msgs[i] = engine.Message{Role: "user", Content: fmt.Sprintf("turn %d", i+1)}
	}
	for i := 0; i < len(msgs); i += 65 {
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t-long", ResourceID: "res-alice", Messages: msgs[i : i+65]}); err != nil {
			t.Fatal(err)
		}
	}
	rr, err := connect(t, e, alice).ReadResource(ctx, &mcp.ReadResourceParams{URI: "mnemo://threads/t-long/messages"})
	if err != nil {
		t.Fatal(err)
	}
	var l server.MessageList
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Messages) != engine.DefaultPageLimit || l.Messages[0].Seq != 31 || l.Messages[99].Seq != 130 || l.NextBeforeSeq != 31 {
		t.Fatalf("resource: %d messages, nextBeforeSeq %d, want seqs 31..130 and 31", len(l.Messages), l.NextBeforeSeq)
	}
}

// TestMessagesResourcePagesBack: the thread-messages template takes
// beforeSeq and limit (RFC 6570 form-style query, in either order), so a
// client follows nextBeforeSeq back to the first turn; an id with ':' is
// read in the percent-encoded form the template expands it to; a bad,
// repeated or unknown parameter is an error naming it. Before, the
// template had no query: the SDK refused such a URI as not found, and an
// encoded id was looked up undecoded.
func TestMessagesResourcePagesBack(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t)
	alice, _, _ := principals(t)
	msgs := make([]engine.Message, 130)
	for i := range msgs {
		msgs[i] = engine.Message{Role: "user", Content: fmt.Sprintf("turn %d", i+1)}
	}
	for i := 0; i < len(msgs); i += 65 {
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "ana:work", ResourceID: "res-alice", Messages: msgs[i : i+65]}); err != nil {
			t.Fatal(err)
		}
	}
	cs := connect(t, e, alice)
	listed := false
	for rt, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		listed = listed || rt.URITemplate == mcpserver.MessagesTemplate
	}
	if !listed || mcpserver.MessagesTemplate != "mnemo://threads/{thread}/messages{?beforeSeq,limit}" {
		t.Fatalf("template %q listed %v", mcpserver.MessagesTemplate, listed)
	}
	const base = "mnemo://threads/ana%3Awork/messages"
	read := func(query string) (first, last, n, next int64) {
		t.Helper()
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: base + query})
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		var l server.MessageList
		if err := json.Unmarshal([]byte(rr.Contents[0].Text), &l); err != nil {
			t.Fatal(err)
		}
		if len(l.Messages) == 0 {
			return 0, 0, 0, l.NextBeforeSeq
		}
		return l.Messages[0].Seq, l.Messages[len(l.Messages)-1].Seq, int64(len(l.Messages)), l.NextBeforeSeq
	}
	for _, c := range []struct {
		query                string
		first, last, n, next int64
	}{
		{"", 31, 130, 100, 31},
		{"?beforeSeq=31", 1, 30, 30, 0},
		{"?beforeSeq=31&limit=10", 21, 30, 10, 21},
		{"?limit=10&beforeSeq=31", 21, 30, 10, 21},
		{"?limit=5", 126, 130, 5, 126},
		{"?beforeSeq=1", 0, 0, 0, 0},
		{"?beforeSeq=9223372036854775807&limit=1000", 1, 130, 130, 0},
	} {
		if first, last, n, next := read(c.query); first != c.first || last != c.last || n != c.n || next != c.next {
			t.Errorf("%s: seqs %d..%d (%d), nextBeforeSeq %d; want %d..%d (%d), %d", c.query, first, last, n, next, c.first, c.last, c.n, c.next)
		}
	}
	// Following nextBeforeSeq walks back to seq 1.
	seen, query := int64(0), "?limit=40"
	for {
		first, _, n, next := read(query)
		seen += n
		if next == 0 {
			if first != 1 || seen != 130 {
				t.Fatalf("walked back to seq %d after %d turns, want 1 after 130", first, seen)
			}
			break
		}
		query = fmt.Sprintf("?limit=40&beforeSeq=%d", next)
	}
	for query, field := range map[string]string{
		"?beforeSeq=0": "beforeSeq", "?beforeSeq=x": "beforeSeq", "?beforeSeq=2&beforeSeq=3": "beforeSeq",
		"?limit=0": "limit", "?limit=1001": "limit", "?fromSeq=3": "fromSeq",
	} {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: base + query})
		if err == nil || !strings.Contains(err.Error(), "field "+field) {
			t.Errorf("%s: %v, want an error naming %s", query, err, field)
		}
	}
}
