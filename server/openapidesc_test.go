package server_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestOpenAPIDescriptionsWhole: a property's description in /openapi.json
// is its jsonschema tag's whole text. invopop/jsonschema splits a tag at
// each comma not escaped as `\,`, and dropped what followed a description's
// first comma as an unknown keyword: ContextBody's recentN was documented
// "recent-window size; 0 means the server default" (", negative turns it
// off" lost), ContextMessage's reason "hit", MessageIn's metadata "a JSON
// object". Every jsonschema tag of the package's types must split into
// keyword=value parts only, and the served recentN and reason say it all.
func TestOpenAPIDescriptionsWhole(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	keyword := regexp.MustCompile(`^[a-zA-Z_]+(=|$)`)
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			field, ok := n.(*ast.Field)
			if !ok || field.Tag == nil {
				return true
			}
			raw, err := strconv.Unquote(field.Tag.Value)
			if err != nil {
				t.Fatalf("%s: %v", fset.Position(field.Pos()), err)
			}
			for _, part := range splitTag(reflect.StructTag(raw).Get("jsonschema")) {
				if !keyword.MatchString(part) {
					t.Errorf("%s: jsonschema tag part %q is no keyword: a comma in a description must be written \\\\,", fset.Position(field.Pos()), part)
				}
			}
			return true
		})
	}
	h := newHarness(t, false, server.Config{})
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(h.do("GET", "/openapi.json", "", nil).body, &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ schema, prop, want string }{
		{"server.ContextBody", "recentN", "recent-window size; 0 means the server default, negative turns it off"},
		{"server.ContextMessage", "reason", "hit, range or repair for a recalled turn; absent for the recent window"},
		{"server.MessageIn", "metadata", "a JSON object, filterable by recall"},
	} {
		var prop struct{ Description string }
		if err := json.Unmarshal(doc.Components.Schemas[c.schema].Properties[c.prop], &prop); err != nil {
			t.Fatalf("%s.%s: %v", c.schema, c.prop, err)
		}
		if prop.Description != c.want {
			t.Errorf("%s.%s description %q, want %q", c.schema, c.prop, prop.Description, c.want)
		}
	}
}

// splitTag splits a jsonschema tag as invopop/jsonschema does: at each
// comma not preceded by a backslash.
func splitTag(tag string) []string {
	if tag == "" {
		return nil
	}
	var parts []string
	for _, p := range strings.Split(tag, ",") {
		if n := len(parts); n > 0 && strings.HasSuffix(parts[n-1], `\`) {
			parts[n-1] = strings.TrimSuffix(parts[n-1], `\`) + "," + p
			continue
		}
		parts = append(parts, p)
	}
	return parts
}
