package inspector_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestThreadPageOlder: the thread page shows the newest page of messages
// and links to the older ones, never the whole thread.
func TestThreadPageOlder(t *testing.T) {
	e, ts := seed(t, nil)
	msgs := make([]engine.Message, 120)
	for i := range msgs {
		msgs[i] = engine.Message{Role: "user", Content: fmt.Sprintf("filler turn %d.", i+1)}
	}
	if _, err := e.Append(context.Background(), engine.AppendRequest{ThreadID: "ana-1", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	// ana-1 holds 7 seeded turns and these 120: seqs 1..127.
	code, body := get(t, ts.URL+"/ui/threads/ana-1", "")
	if code != 200 || strings.Contains(body, `id="seq-27"`) || !strings.Contains(body, `id="seq-28"`) || !strings.Contains(body, `id="seq-127"`) || !strings.Contains(body, `href="?beforeSeq=28"`) {
		t.Fatalf("newest page: %d, want seqs 28..127 and a link to older ones", code)
	}
	code, body = get(t, ts.URL+"/ui/threads/ana-1?beforeSeq=28", "")
	if code != 200 || !strings.Contains(body, `id="seq-1"`) || !strings.Contains(body, `id="seq-27"`) || strings.Contains(body, `id="seq-28"`) || strings.Contains(body, "beforeSeq=") || !strings.Contains(body, `href="?"`) {
		t.Fatalf("older page: %d, want seqs 1..27, no older link, a newest link", code)
	}
	if code, _ = get(t, ts.URL+"/ui/threads/ana-1?beforeSeq=x", ""); code != 400 {
		t.Fatalf("beforeSeq=x: %d, want 400", code)
	}
}
