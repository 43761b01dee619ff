package demodata_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/demodata"
	"github.com/mnemo-go/mnemo/engine"
)

// TestConversationRedactsOnlyTheKey: the default redactor changes no text
// of the sample but the work session's API key, which it is there to
// show. red70: the trip's tool result {"pass":"Interrail Global, …"} was
// stored {"pass":"[REDACTED]"} (a quoted key "pass" names a password, and
// no shape tells a rail pass's name from a passphrase), so its key is
// rail_card now.
func TestConversationRedactsOnlyTheKey(t *testing.T) {
	r := engine.DefaultRedactor()
	sc := bufio.NewScanner(bytes.NewReader(demodata.Conversation))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec struct {
			ID        string            `json:"id"`
			Content   string            `json:"content"`
			ToolCalls []json.RawMessage `json:"tool_calls"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		texts := []string{rec.Content}
		for _, c := range rec.ToolCalls {
			texts = append(texts, string(c))
		}
		for _, s := range texts {
			got := r.Redact(s)
			if strings.Contains(s, "sk-demo-") {
				if strings.Contains(got, "sk-demo-") {
					t.Errorf("%s: the API key is stored: %q", rec.ID, got)
				}
				continue
			}
			if got != s {
				t.Errorf("%s: stored %q, want it as written %q", rec.ID, got, s)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}
