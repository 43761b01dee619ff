package tools_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/working"
)

// TestFailureTextAsGiven: a refusal, {"ok":false,"error":…}, names what
// the model sent as it sent it, "<", ">" and "&" included: an unknown tool
// "<b>&x" and a search text "<b> & x" that does not occur. Before,
// json.Marshal wrote them "\u003cb\u003e\u0026x", text the model never
// sent, in the tool message it reads next.
func TestFailureTextAsGiven(t *testing.T) { forEachBackend(t, testFailureTextAsGiven) }

func testFailureTextAsGiven(t *testing.T, b backend) {
	e := b.newEnv(t)
	reg, _ := e.registry(t, working.Config{Template: "# User\n- Name:\n"}, working.ThreadKey("t"))
	msg, err := reg.Handle(context.Background(), "r", openaitest.ToolCall("c1", "<b>&x", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"ok":false,"error":"unknown tool \"<b>&x\"; `; !strings.HasPrefix(msg.Content, want) {
		t.Errorf("unknown tool: %s, want it to begin %s", msg.Content, want)
	}
	msg, r := handle(t, reg, "r", call("c2", `{"search":"<b> & x","replace":"y"}`))
	if r.OK || !strings.Contains(msg.Content, `\"<b> & x\" does not occur`) || strings.Contains(msg.Content, `\u00`) {
		t.Errorf("search not found: %s, want the search text as given", msg.Content)
	}
}
