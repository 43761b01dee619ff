package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"reflect"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"
	orderedmap "github.com/pb33f/ordered-map/v2"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// openAPIInfo is the document's description.
const openAPIInfo = "mnemo's HTTP JSON API: append conversation turns, load the memory part of a prompt with its memctx record, " +
	"search memory, replay runs, read and update working memory, list observations, erase. " +
	"Send Authorization: Bearer <token> when the server has a token file; a token sees only its resources, " +
	"and anything else is answered 404 as if it did not exist. Errors are RFC 9457 application/problem+json."

// schemaName names a reflected type in components/schemas: its package's
// last element and its name ("engine.Message"), so types of one name in
// two packages do not collide.
func schemaName(t reflect.Type) string {
	if t.PkgPath() == "" {
		return t.Name()
	}
	return path.Base(t.PkgPath()) + "." + t.Name()
}

// buildOpenAPI renders the OpenAPI 3.1 document of rts. Schemas come from the
// Go types the handlers decode and encode (invopop/jsonschema), so the
// document and the handlers cannot drift apart field by field.
func buildOpenAPI(rts []*route, version string) ([]byte, error) {
	r := &jsonschema.Reflector{Namer: schemaName, Mapper: mapType, AllowAdditionalProperties: false}
	schemas := map[string]any{}
	ref := func(v any) (map[string]any, error) {
		s := r.Reflect(v)
		for name, d := range s.Definitions {
			if name == schemaName(reflect.TypeOf(recall.Options{})) {
				boundRecall(d)
			}
			schemas[name] = d
		}
		if s.Ref == "" {
			return nil, fmt.Errorf("type %T has no schema reference", v)
		}
		return map[string]any{"$ref": s.Ref}, nil
	}
	problem, err := ref(Problem{})
	if err != nil {
		return nil, err
	}
	paths := map[string]map[string]any{}
	for _, rt := range rts {
		op, err := operation(rt, ref, problem)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rt.pattern(), err)
		}
		if paths[rt.path] == nil {
			paths[rt.path] = map[string]any{}
		}
		paths[rt.path][strings.ToLower(rt.method)] = op
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info":    map[string]any{"title": "mnemo", "version": version, "description": openAPIInfo, "license": map[string]any{"name": "Apache-2.0", "identifier": "Apache-2.0"}},
		"paths":   paths,
		"components": map[string]any{
			"schemas":         schemas,
			"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer"}},
		},
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return []byte(strings.ReplaceAll(string(unescapeHTML(b)), `"#/$defs/`, `"#/components/schemas/`)), nil
}

// unescapeHTML is b, JSON text, with encoding/json's HTML escapes \u003c,
// \u003e and \u0026 written as the "<", ">" and "&" they stand for, as
// every answer writes them (encodeJSON): the document's descriptions read
// "Bearer \u003ctoken\u003e" and "thread:\u003cid\u003e" before. A
// pass over the text, not an encoder option: the schemas marshal
// themselves (jsonschema.Schema.MarshalJSON) with the escaping. An escaped
// backslash ("\\u003c", a backslash and "u003c") is kept.
func unescapeHTML(b []byte) []byte {
	htmlEscapes := map[string]byte{`\u003c`: '<', `\u003e`: '>', `\u0026`: '&'}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 == len(b) {
			out = append(out, b[i])
			continue
		}
		if r := htmlEscapes[string(b[i:min(i+6, len(b))])]; r != 0 {
			out, i = append(out, r), i+5
			continue
		}
		out, i = append(out, b[i], b[i+1]), i+1
	}
	return out
}

// mapType gives schemas for types whose JSON is not their Go shape.
func mapType(t reflect.Type) *jsonschema.Schema {
	if t == stateContentType {
		return stateContentSchema()
	}
	if t == reflect.TypeOf(recall.Range{}) {
		return &jsonschema.Schema{
			Description: "neighbours of each hit by seq: a number (both sides) or {before, after}",
			OneOf: []*jsonschema.Schema{
				{Type: "integer", Minimum: "0", Maximum: maxRange},
				{Type: "object", Properties: rangeProps(), AdditionalProperties: jsonschema.FalseSchema},
			},
		}
	}
	return nil
}

func rangeProps() *orderedmap.OrderedMap[string, *jsonschema.Schema] {
	props := jsonschema.NewProperties()
	props.Set("before", &jsonschema.Schema{Type: "integer", Minimum: "0", Maximum: maxRange})
	props.Set("after", &jsonschema.Schema{Type: "integer", Minimum: "0", Maximum: maxRange})
	return props
}

// maxRange is recall.MaxMessageRange as a schema bound.
var maxRange = json.Number(strconv.Itoa(recall.MaxMessageRange))

// boundRecall gives recall.Options' schema d the bounds recall's Validate
// holds topK ([0, recall.MaxTopK]) and threshold ([-1, 1]) to, which the
// server answers 400 outside of; messageRange's are rangeProps' and
// mapType's. The bounds come from recall's constants, not tags, so the
// document cannot drift from them. No member is required: topK and
// messageRange, tagged without omitempty, were listed as required,
// though {"recall":{}} is taken (topK 0 is the default, 5; no range).
func boundRecall(d *jsonschema.Schema) {
	d.Required = nil
	if p, ok := d.Properties.Get("topK"); ok {
		p.Minimum, p.Maximum = "0", json.Number(strconv.Itoa(recall.MaxTopK))
	}
	if p, ok := d.Properties.Get("threshold"); ok {
		p.Minimum, p.Maximum = "-1", "1"
	}
}

func operation(rt *route, ref func(any) (map[string]any, error), problem map[string]any) (map[string]any, error) {
	op := map[string]any{"operationId": rt.op, "summary": rt.summary, "tags": []string{rt.tag}}
	var params []any
	for _, m := range pathParam.FindAllStringSubmatch(rt.path, -1) {
		params = append(params, pathIDParam(m[1], rt.newID))
	}
	for _, q := range rt.query {
		p := map[string]any{"name": q.name, "in": "query", "description": q.doc, "schema": map[string]any{"type": q.typ}}
		if strings.HasPrefix(q.doc, "Deprecated") {
			p["deprecated"] = true
		}
		params = append(params, p)
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	if rt.auth {
		op["security"] = []any{map[string]any{"bearer": []string{}}}
	}
	if rt.body != nil {
		s, err := ref(rt.body)
		if err != nil {
			return nil, err
		}
		op["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": s}}}
	}
	ok := map[string]any{"description": "OK"}
	switch {
	case rt.resp != nil:
		s, err := ref(rt.resp)
		if err != nil {
			return nil, err
		}
		ok["content"] = map[string]any{"application/json": map[string]any{"schema": s}}
	case rt.contentType != "":
		ok["content"] = map[string]any{rt.contentType: map[string]any{"schema": map[string]any{"type": stringOrObject(rt.contentType)}}}
	}
	responses := map[string]any{fmt.Sprint(rt.okStatus()): ok}
	statuses := append([]int{400, 500}, rt.errors...)
	if rt.auth {
		// 429: too many failed authentications (AuthLimiter); 503: the
		// engine closing, a database outage, Config.RequestTimeout.
		statuses = append(statuses, 401, 429, 503)
	}
	if rt.body != nil {
		statuses = append(statuses, 408, 413)
	}
	for _, st := range statuses {
		responses[fmt.Sprint(st)] = map[string]any{"description": http.StatusText(st), "content": map[string]any{"application/problem+json": map[string]any{"schema": problem}}}
	}
	op["responses"] = responses
	return op, nil
}

// idPattern is the pattern of every id in a path (engine.ValidID).
const idPattern = "^[A-Za-z0-9_.:@-]{1,128}$"

// pathIDParam is the path parameter name. An id a write stores under
// (newID: the route's handler holds it to NewID) is not "." or ".." and
// does not begin with engine.TombstonePrefix: its schema says so with a
// not (an enum, a pattern) beside the pattern, which every id shares.
// A read's or an erasure's id may be "." or "..", which a data directory
// written before that rule may hold; its description says so.
func pathIDParam(name string, newID bool) map[string]any {
	schema := map[string]any{"type": "string", "pattern": idPattern}
	desc := `1-128 characters of [A-Za-z0-9_.:@-]. "." and "..", which no new id may be (URLs read them as dot segments), ` +
		"are answered where a data directory written before that rule holds them, to clients that send the path as written " +
		"(Go's net/http, curl --path-as-is; a browser or fetch cannot)"
	if newID {
		schema["not"] = map[string]any{"anyOf": []any{
			map[string]any{"enum": []string{".", ".."}},
			map[string]any{"pattern": "^" + engine.TombstonePrefix},
		}}
		desc = engine.NewIDRule[len("must be "):] + `: ` +
			"the request stores data under it (a 400 naming " + name + " otherwise)"
	}
	return map[string]any{"name": name, "in": "path", "required": true, "description": desc, "schema": schema}
}

func stringOrObject(contentType string) string {
	if strings.HasPrefix(contentType, "application/json") {
		return "object"
	}
	return "string"
}

func (s *Server) serveOpenAPI(w http.ResponseWriter, _ *http.Request, _ *Principal) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(s.openapi)
}
