package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/server"
)

// TestOpenAPIMatchesMux: the document served at /openapi.json names every
// route of the mux and nothing else, each documented operation is served
// (the mux does not answer its own 404 or 405), an undocumented path is
// not, and every response schema resolves.
func TestOpenAPIMatchesMux(t *testing.T) {
	h := newHarness(t, false, server.Config{})
	r := h.do("GET", "/openapi.json", "", nil)
	if r.status != 200 || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("openapi.json: %d %s", r.status, r.header.Get("Content-Type"))
	}
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(r.body, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi %q, want 3.1.0", doc.OpenAPI)
	}
	var documented []string
	for p, ops := range doc.Paths {
		for m, raw := range ops {
			documented = append(documented, strings.ToUpper(m)+" "+p)
			var op struct {
				Responses map[string]json.RawMessage `json:"responses"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatal(err)
			}
			for status := range op.Responses {
				for _, media := range []string{"application/json", "application/problem+json"} {
					loc := "mem://openapi.json#/paths/" + strings.ReplaceAll(p, "/", "~1") + "/" + m + "/responses/" + status + "/content/" + strings.ReplaceAll(media, "/", "~1") + "/schema"
					if strings.Contains(string(op.Responses[status]), `"`+media+`"`) {
						if _, err := h.schema.Compile(loc); err != nil {
							t.Errorf("%s %s %s: schema does not compile: %v", m, p, status, err)
						}
					}
				}
			}
		}
	}
	served := server.RoutePatterns()
	sort.Strings(documented)
	sort.Strings(served)
	if strings.Join(documented, "\n") != strings.Join(served, "\n") {
		t.Fatalf("documented operations:\n%s\nserved routes:\n%s", strings.Join(documented, "\n"), strings.Join(served, "\n"))
	}
	param := regexp.MustCompile(`\{[a-z]+\}`)
	for _, op := range documented {
		method, path, _ := strings.Cut(op, " ")
		path = param.ReplaceAllString(path, "x1")
		r := h.do(method, path, "", nil)
		if muxAnswer(r) {
			t.Errorf("%s %s: answered by the mux itself (%d %s): not served", method, path, r.status, r.body)
		}
	}
	for _, probe := range [][2]string{{"GET", "/v1/nope"}, {"PATCH", "/v1/threads/x1"}, {"GET", "/v2/threads"}} {
		if r := h.do(probe[0], probe[1], "", nil); !muxAnswer(r) {
			t.Errorf("%s %s: answered %d by a handler, but it is not documented", probe[0], probe[1], r.status)
		}
	}
}

// muxAnswer reports whether no route took the request: no route (404 "no
// route") or a route without this method (405), answered by the server's
// root handler.
func muxAnswer(r response) bool {
	var p server.Problem
	if r.header.Get("Content-Type") != "application/problem+json" || json.Unmarshal(r.body, &p) != nil {
		return false
	}
	return r.status == http.StatusNotFound && strings.HasPrefix(p.Detail, "no route ") ||
		r.status == http.StatusMethodNotAllowed && p.Type == server.ProblemTypeBase+"method-not-allowed"
}

// TestOpenAPIVacuumedEnum: the document lists every reason an erasure's
// purge vacuums (engine.Vacuum) as the enum of EraseResult's vacuumed, and
// only those, so a client can switch on it; it was a plain string.
func TestOpenAPIVacuumedEnum(t *testing.T) {
	h := newHarness(t, false, server.Config{})
	r := h.do("GET", "/openapi.json", "", nil)
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(r.body, &doc); err != nil {
		t.Fatal(err)
	}
	var vacuumed struct {
		Enum []string `json:"enum"`
	}
	if err := json.Unmarshal(doc.Components.Schemas["server.EraseResult"].Properties["vacuumed"], &vacuumed); err != nil {
		t.Fatalf("EraseResult.vacuumed: %v", err)
	}
	got := vacuumed.Enum
	want := []string{string(engine.VacuumResidue), string(engine.VacuumTooLarge), string(engine.VacuumTextsUnknown)}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("EraseResult.vacuumed enum %q, want %q", got, want)
	}
}

// TestOpenAPIRequired: the document marks as required in a request body
// exactly the members a request must give: resourceId may be left out of
// POST /v1/search and POST /v1/threads/{thread}/messages (the thread's or
// the token's only resource, as the MCP tools), so a client generated from
// the document must not demand it; a tool call's arguments may be left out
// (engine.ToolCallArgumentsOf: stored as {}), and are typed as it reads
// them (before, "true": any JSON value); no recall option is required
// (before, topK and messageRange were). A working-memory update's content
// is a string, an object or null (before, a string).
func TestOpenAPIRequired(t *testing.T) {
	h := newHarness(t, false, server.Config{})
	r := h.do("GET", "/openapi.json", "", nil)
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Required   []string                   `json:"required"`
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(r.body, &doc); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]struct{ required, optional []string }{
		"server.SearchBody": {[]string{"query"}, []string{"resourceId"}},
		"server.AppendBody": {[]string{"messages"}, []string{"resourceId"}},
		"engine.ToolCall":   {[]string{"id", "name"}, []string{"arguments"}},
		// {"recall":{}} is taken: topK 0 is the default.
		"recall.Options": {nil, []string{"topK", "messageRange"}},
	} {
		body, ok := doc.Components.Schemas[name]
		if !ok {
			t.Fatalf("no %s schema", name)
		}
		if got := body.Required; !slices.Equal(got, want.required) {
			t.Errorf("%s required %q, want %q", name, got, want.required)
		}
		for _, p := range want.optional {
			if _, ok := body.Properties[p]; !ok {
				t.Errorf("%s has no %s property", name, p)
			}
		}
	}
	// Arguments are an object, the model's text, or null (stored as {}):
	// a list, a number or a boolean is a 400 (engine.ToolCallArgumentsOf).
	const args = `{"oneOf":[{"type":"object"},{"type":"string"},{"type":"null"}]}`
	var got bytes.Buffer
	if err := json.Compact(&got, doc.Components.Schemas["engine.ToolCall"].Properties["arguments"]); err != nil || got.String() != args {
		t.Errorf("engine.ToolCall arguments %s (%v), want %s", got.String(), err, args)
	}
	// A working-memory content is the state's text or, in schema mode,
	// the object itself (before, a string only); null is left out.
	var content struct {
		OneOf json.RawMessage `json:"oneOf"`
	}
	got.Reset()
	const states = `[{"type":"string"},{"type":"object"},{"type":"null"}]`
	if err := json.Unmarshal(doc.Components.Schemas["server.WorkingMemoryUpdate"].Properties["content"], &content); err != nil || json.Compact(&got, content.OneOf) != nil || got.String() != states {
		t.Errorf("server.WorkingMemoryUpdate content's oneOf %s (%v), want %s", got.String(), err, states)
	}
}

// TestOpenAPIRecallBounds: the document gives recall's bounds, which the
// server answers 400 outside of: topK within [0, recall.MaxTopK],
// threshold within [-1, 1], messageRange (a number, or before and after)
// at most recall.MaxMessageRange. Before, only the minimum 0 of
// messageRange was given.
func TestOpenAPIRecallBounds(t *testing.T) {
	h := newHarness(t, false, server.Config{})
	type bounds struct {
		Minimum *float64 `json:"minimum"`
		Maximum *float64 `json:"maximum"`
	}
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	var options struct {
		Properties struct {
			TopK         bounds `json:"topK"`
			Threshold    bounds `json:"threshold"`
			MessageRange struct {
				OneOf []struct {
					bounds
					Properties map[string]bounds `json:"properties"`
				} `json:"oneOf"`
			} `json:"messageRange"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(h.doc, &doc); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(doc.Components.Schemas["recall.Options"], &options); err != nil {
		t.Fatal(err)
	}
	o := options.Properties
	show := func(p *float64) string {
		if p == nil {
			return "none"
		}
		return strconv.FormatFloat(*p, 'g', -1, 64)
	}
	is := func(what string, b bounds, lo, hi float64) {
		t.Helper()
		if b.Minimum == nil || b.Maximum == nil || *b.Minimum != lo || *b.Maximum != hi {
			t.Errorf("%s: bounds %s..%s, want [%g, %g]", what, show(b.Minimum), show(b.Maximum), lo, hi)
		}
	}
	is("topK", o.TopK, 0, recall.MaxTopK)
	is("threshold", o.Threshold, -1, 1)
	if len(o.MessageRange.OneOf) != 2 {
		t.Fatalf("messageRange: %d alternatives, want 2", len(o.MessageRange.OneOf))
	}
	is("messageRange (a number)", o.MessageRange.OneOf[0].bounds, 0, recall.MaxMessageRange)
	for _, side := range []string{"before", "after"} {
		is("messageRange."+side, o.MessageRange.OneOf[1].Properties[side], 0, recall.MaxMessageRange)
	}
}
