package working

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	invopop "github.com/invopop/jsonschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// SchemaFor reflects the JSON Schema of v's type with invopop/jsonschema:
// nested types inlined (no $defs), the root is the object itself, no $id and
// no $schema (DEPENDENCIES.md, section 6). Field docs come from
// `jsonschema:"description=…"` or `jsonschema_description:"…"` tags. v is
// usually a zero struct value or a pointer to one, e.g. SchemaFor(Profile{}).
// Errors: ErrInvalidSchema for a nil v or a schema that does not encode.
func SchemaFor(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, fmt.Errorf("%w: SchemaFor(nil)", ErrInvalidSchema)
	}
	r := &invopop.Reflector{DoNotReference: true, ExpandedStruct: true, Anonymous: true}
	s := r.Reflect(v)
	s.Version = ""
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("%w: reflect %T: %v", ErrInvalidSchema, v, err)
	}
	return b, nil
}

// schemaURL is the name the validator knows the schema by; it appears in no
// message shown to the model.
const schemaURL = "mem://working/schema.json"

// compiledSchema is a schema prepared for both of its uses.
type compiledSchema struct {
	raw       json.RawMessage    // as configured
	params    json.RawMessage    // tool parameters: inlined, relaxed, without $schema/$id/$defs
	validator *jsonschema.Schema // compiled from the relaxed schema
}

// compileSchema inlines raw's local $refs, relaxes "required" where merge
// semantics apply (see relaxRequired) and compiles the result.
func compileSchema(raw json.RawMessage) (*compiledSchema, error) {
	doc, err := decodeJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidSchema, err)
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: the schema is not a JSON object", ErrInvalidSchema)
	}
	if !isObjectSchema(root) {
		return nil, fmt.Errorf(`%w: the root must describe an object ("type": "object" or "properties")`, ErrInvalidSchema)
	}
	inl, err := inline(root, root, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidSchema, err)
	}
	root = inl.(map[string]any)
	for _, k := range []string{"$defs", "definitions", "$schema", "$id", "$comment"} {
		delete(root, k)
	}
	relaxRequired(root)

	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(schemaURL, root); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidSchema, err)
	}
	v, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidSchema, err)
	}
	params, err := json.Marshal(root)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidSchema, err)
	}
	return &compiledSchema{raw: bytes.Clone(raw), params: params, validator: v}, nil
}

func isObjectSchema(s map[string]any) bool {
	switch t := s["type"].(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	}
	_, ok := s["properties"].(map[string]any)
	return ok
}

// inline replaces every local "$ref" ("#", "#/$defs/…", "#/definitions/…",
// any JSON pointer into the document) with a copy of its target, keeping
// sibling keywords. A recursive reference cannot be inlined and is an error;
// so is a remote one.
func inline(node any, root map[string]any, stack []string) (any, error) {
	switch n := node.(type) {
	case map[string]any:
		out := make(map[string]any, len(n))
		if ref, ok := n["$ref"].(string); ok {
			if !strings.HasPrefix(ref, "#") {
				return nil, fmt.Errorf("$ref %q: only local references can be inlined", ref)
			}
			if slices.Contains(stack, ref) {
				return nil, fmt.Errorf("$ref %q is recursive and cannot be inlined", ref)
			}
			target, err := pointer(root, ref[1:])
			if err != nil {
				return nil, fmt.Errorf("$ref %q: %v", ref, err)
			}
			t, err := inline(target, root, append(stack, ref))
			if err != nil {
				return nil, err
			}
			if tm, ok := t.(map[string]any); ok {
				for k, v := range tm {
					if k != "$defs" && k != "definitions" && k != "$schema" && k != "$id" {
						out[k] = v
					}
				}
			}
		}
		for k, v := range n {
			if k == "$ref" {
				continue
			}
			c, err := inline(v, root, stack)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(n))
		for i, v := range n {
			c, err := inline(v, root, stack)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	default:
		return n, nil
	}
}

// pointer resolves a JSON pointer (RFC 6901) in doc.
func pointer(doc any, ptr string) (any, error) {
	if ptr == "" {
		return doc, nil
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, fmt.Errorf("not a JSON pointer")
	}
	cur := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("cannot resolve %q", tok)
		}
		if cur, ok = m[tok]; !ok {
			return nil, fmt.Errorf("%q not found", tok)
		}
	}
	return cur, nil
}

// relaxRequired deletes "required" from s and from every schema that merge
// semantics reach from it: object properties (properties,
// patternProperties, additionalProperties) and the branches of
// allOf/anyOf/oneOf. Working memory fills in over a conversation and a merge
// patch names only what changed, so "required" cannot hold there. Inside
// array items it stays in force: arrays are replaced whole.
func relaxRequired(s map[string]any) {
	delete(s, "required")
	for _, k := range []string{"properties", "patternProperties"} {
		if props, ok := s[k].(map[string]any); ok {
			for _, p := range props {
				if pm, ok := p.(map[string]any); ok {
					relaxRequired(pm)
				}
			}
		}
	}
	if ap, ok := s["additionalProperties"].(map[string]any); ok {
		relaxRequired(ap)
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if list, ok := s[k].([]any); ok {
			for _, b := range list {
				if bm, ok := b.(map[string]any); ok {
					relaxRequired(bm)
				}
			}
		}
	}
}

// validate checks a decoded state and returns ErrSchemaViolation listing
// each violation as "at /pointer: message".
func (cs *compiledSchema) validate(v any) error {
	err := cs.validator.Validate(v)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return fmt.Errorf("%w: %v", ErrSchemaViolation, err)
	}
	p := message.NewPrinter(language.English)
	var msgs []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			msgs = append(msgs, fmt.Sprintf("at %s: %s", loc, e.ErrorKind.LocalizedString(p)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.Sort(msgs) // the validator's order follows map iteration
	msgs = slices.Compact(msgs)
	return fmt.Errorf("%w: %s", ErrSchemaViolation, strings.Join(msgs, "; "))
}

// decodeJSON decodes one JSON value with numbers kept as json.Number, so
// integers survive unchanged, and refuses anything but whitespace after
// it (a *jsonkey.TrailingError) and a key given twice in one object,
// which encoding/json would read as its last value.
func decodeJSON(b []byte) (any, error) {
	if path, _, ok := jsonkey.Repeated(b); ok {
		return nil, fmt.Errorf("%q is given twice in one object; give each member once", path)
	}
	src := bytes.NewReader(b)
	d := json.NewDecoder(src)
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if err := jsonkey.End(d, src); err != nil {
		return nil, err
	}
	return v, nil
}
