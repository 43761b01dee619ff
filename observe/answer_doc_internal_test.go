package observe

import (
	"encoding/json"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnswerDoc: Answer's doc gives the shapes the models answer in, and
// they are those the prompts ask for and parseAnswer reads; the recorded
// form it names ("items") is Answer's JSON. Before, the doc named only the
// recorded form, and `go doc observe.Answer` showed "items" where the
// observer model must answer {"observations": […]}.
func TestAnswerDoc(t *testing.T) {
	fset := token.NewFileSet()
	names, _ := filepath.Glob("*.go")
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/mnemo-go/mnemo/observe")
	if err != nil {
		t.Fatal(err)
	}
	var answerDoc string
	for _, ty := range p.Types {
		if ty.Name == "Answer" {
			answerDoc = ty.Doc
		}
	}
	// The indented lines of the doc are the models' answers, in order.
	var blocks []string
	for _, line := range strings.Split(answerDoc, "\n") {
		if strings.HasPrefix(line, "\t") {
			blocks = append(blocks, strings.TrimSpace(line))
		}
	}
	if len(blocks) != 2 {
		t.Fatalf("Answer's doc shows %d model answers, want the observer's and the reflector's:\n%s", len(blocks), answerDoc)
	}
	for i, c := range []struct{ field, system string }{{"observations", observerSystem}, {"reflection", reflectorSystem}} {
		if !strings.HasPrefix(blocks[i], `{"`+c.field+`": [{"text": `) || !strings.Contains(c.system, `{"`+c.field+`": [{"text": `) {
			t.Errorf("Answer's doc shows %s; the prompt asks for {%q: [{\"text\": …", blocks[i], c.field)
		}
		items, err := parseAnswer(blocks[i], c.field)
		if err != nil || len(items) != 1 || items[0].Text != "…" {
			t.Errorf("parseAnswer(%s) = %+v, %v", blocks[i], items, err)
		}
	}
	b, _ := json.Marshal(Answer{Version: ObserverPromptVersion, Items: []Item{}})
	if want := `{"version":"observer-v4","items":[]}`; string(b) != want || !strings.Contains(answerDoc, `{"version": "observer-v4", "items": [Item…]}`) {
		t.Errorf("Answer marshals as %s (want %s), and its doc says:\n%s", b, want, answerDoc)
	}
}
