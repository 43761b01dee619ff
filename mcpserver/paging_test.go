package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/engine"
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
