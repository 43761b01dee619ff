package recall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// Filter is a parsed metadata filter. The nil *Filter matches every message.
//
// The syntax is the usual JSON operator style (MongoDB, Chroma, Mastra):
//
//	{"role": "user"}                                 implicit $eq
//	{"seq": {"$gte": 10, "$lt": 20}}                 several operators: all must hold
//	{"$or": [{"role": "tool"}, {"metadata.topic": {"$in": ["a", "b"]}}]}
//	{"$not": {"threadId": "t1"}}
//
// Fields: "role" and "threadId" (strings; a role is compared by $eq, $ne,
// $in or $nin only, with user, assistant or tool), "seq" (integer), "createdAt" (an
// RFC 3339 string, or Unix milliseconds as a number) and "metadata.<key>"
// (any JSON scalar; a dotted key walks nested objects). Several keys in one
// object are ANDed. Comparison operators: $eq $ne $gt $gte $lt $lte $in $nin;
// logical: $and and $or (non-empty arrays) and $not (an object).
//
// Semantics follow MongoDB: a comparison between values of different JSON
// types is false; an absent metadata key fails $eq, $gt, $gte, $lt, $lte and
// $in, and satisfies $ne and $nin. Numbers compare as float64, strings
// byte-wise, createdAt by time.
//
// A filter narrows a search; it never widens its scope: a search with scope
// "resource" sees only that resource's messages, whatever the filter says.
type Filter struct {
	root fnode
	raw  json.RawMessage
}

// MaxFilterDepth bounds the nesting of $and/$or/$not; MaxFilterTerms bounds
// the number of comparisons and $in/$nin values. A larger filter is invalid.
const (
	MaxFilterDepth = 16
	MaxFilterTerms = 1024
)

// Filter operators.
const (
	OpEq  = "$eq"
	OpNe  = "$ne"
	OpGt  = "$gt"
	OpGte = "$gte"
	OpLt  = "$lt"
	OpLte = "$lte"
	OpIn  = "$in"
	OpNin = "$nin"
	OpAnd = "$and"
	OpOr  = "$or"
	OpNot = "$not"
)

// errUnknownOperator is the cause of a FilterError for an operator the
// filter does not take, beside the fields or under one: it lists them all
// with where each goes, since an operator in the wrong place (a $or under
// a field) is as unknown there as a misspelt one.
var errUnknownOperator = errors.New("unknown operator (want $eq $ne $gt $gte $lt $lte $in $nin under a field, or $and $or $not beside the fields)")

type fnode interface {
	match(d *Doc) bool
}

type andNode []fnode
type orNode []fnode
type notNode struct{ n fnode }

func (a andNode) match(d *Doc) bool {
	for _, n := range a {
		if !n.match(d) {
			return false
		}
	}
	return true
}

func (o orNode) match(d *Doc) bool {
	for _, n := range o {
		if n.match(d) {
			return true
		}
	}
	return false
}

func (n notNode) match(d *Doc) bool { return !n.n.match(d) }

// cmpNode is one comparison of a field against a value (or a set of values
// for $in and $nin).
type cmpNode struct {
	field string   // "role", "threadId", "seq", "createdAt" or "metadata"
	key   []string // metadata path
	op    string
	vals  []scalar
}

// scalar is a JSON scalar: kind 's' string, 'n' number, 'b' bool, 'z' null.
type scalar struct {
	kind byte
	s    string
	n    float64
	b    bool
}

// Raw returns the JSON the filter was parsed from.
func (f *Filter) Raw() json.RawMessage {
	if f == nil {
		return nil
	}
	return f.raw
}

// Match reports whether d satisfies the filter. A nil filter matches all.
func (f *Filter) Match(d *Doc) bool {
	if f == nil || f.root == nil {
		return true
	}
	return f.root.match(d)
}

// ParseFilter parses a JSON filter. Empty input, whitespace, "null" and "{}"
// give a nil *Filter (no filtering) and no error. An invalid filter returns a
// *FilterError naming the path and operator, matching ErrInvalidFilter; an
// object that names one key twice ({"role":"user","role":"tool"}) is invalid,
// at the path of the repeated key, rather than "last key wins"; so is a NUL
// byte in a metadata key or a string value, and anything but whitespace
// after the filter ("unexpected data after the JSON value at byte N", N
// counted from 0 in raw).
func ParseFilter(raw []byte) (*Filter, error) {
	lead := len(raw) - len(bytes.TrimLeftFunc(raw, unicode.IsSpace))
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	src := bytes.NewReader(raw)
	dec := json.NewDecoder(src)
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &FilterError{Err: fmt.Errorf("not JSON: %w", err)}
	}
	if err := jsonkey.End(dec, src); err != nil {
		// dec.More passed a "}" or "]" after the object: the filter was
		// applied as if it were not there. The offset is the input's.
		if te := (*jsonkey.TrailingError)(nil); errors.As(err, &te) {
			te.Offset += int64(lead)
		}
		return nil, &FilterError{Err: err}
	}
	if path, key, dup := jsonkey.Repeated(raw); dup {
		return nil, &FilterError{Path: path, Err: fmt.Errorf("key %q is repeated in one object (JSON decoding would keep the last silently)", key)}
	}
	p := &parser{}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, &FilterError{Err: fmt.Errorf("a filter is a JSON object, got %s", jsonKind(v))}
	}
	if len(obj) == 0 {
		return nil, nil
	}
	n, err := p.object(obj, "", 0)
	if err != nil {
		return nil, err
	}
	return &Filter{root: n, raw: append(json.RawMessage(nil), raw...)}, nil
}

type parser struct{ terms int }

// errNUL refuses a NUL byte in a metadata key or a string value: no stored
// message holds one (Append refuses them), and Postgres cannot take one as
// a query parameter.
var errNUL = errors.New("must not contain NUL bytes (no stored message holds one)")

func (p *parser) object(obj map[string]any, path string, depth int) (fnode, error) {
	if depth > MaxFilterDepth {
		return nil, &FilterError{Path: path, Err: fmt.Errorf("nested deeper than %d", MaxFilterDepth)}
	}
	if len(obj) == 0 {
		return nil, &FilterError{Path: path, Err: errors.New("empty object")}
	}
	var all andNode
	for _, k := range sortedKeys(obj) {
		v := obj[k]
		sub := joinPath(path, k)
		switch k {
		case OpAnd, OpOr:
			arr, ok := v.([]any)
			if !ok || len(arr) == 0 {
				return nil, &FilterError{Path: sub, Op: k, Err: errors.New("want a non-empty array of filter objects")}
			}
			var kids []fnode
			for i, e := range arr {
				eo, ok := e.(map[string]any)
				ip := fmt.Sprintf("%s[%d]", sub, i)
				if !ok {
					return nil, &FilterError{Path: ip, Op: k, Err: fmt.Errorf("want a filter object, got %s", jsonKind(e))}
				}
				n, err := p.object(eo, ip, depth+1)
				if err != nil {
					return nil, err
				}
				kids = append(kids, n)
			}
			if k == OpAnd {
				all = append(all, andNode(kids))
			} else {
				all = append(all, orNode(kids))
			}
		case OpNot:
			eo, ok := v.(map[string]any)
			if !ok {
				return nil, &FilterError{Path: sub, Op: k, Err: fmt.Errorf("want a filter object, got %s", jsonKind(v))}
			}
			n, err := p.object(eo, sub, depth+1)
			if err != nil {
				return nil, err
			}
			all = append(all, notNode{n})
		default:
			if strings.HasPrefix(k, "$") {
				return nil, &FilterError{Path: path, Op: k, Err: errUnknownOperator}
			}
			n, err := p.field(k, v, sub)
			if err != nil {
				return nil, err
			}
			all = append(all, n)
		}
	}
	if len(all) == 1 {
		return all[0], nil
	}
	return all, nil
}

// field parses the condition on one field: a scalar (implicit $eq) or an
// object of comparison operators.
func (p *parser) field(name string, v any, path string) (fnode, error) {
	base := &cmpNode{field: name}
	switch {
	case name == "role", name == "threadId", name == "seq", name == "createdAt":
	case strings.HasPrefix(name, "metadata."):
		key := strings.Split(strings.TrimPrefix(name, "metadata."), ".")
		for _, part := range key {
			if part == "" {
				return nil, &FilterError{Path: path, Err: errors.New("empty metadata key segment")}
			}
			if strings.ContainsRune(part, 0) {
				return nil, &FilterError{Path: path, Err: errNUL}
			}
		}
		base.field, base.key = "metadata", key
	default:
		return nil, &FilterError{Path: path, Err: fmt.Errorf("unknown field %q (want role, threadId, seq, createdAt or metadata.<key>)", name)}
	}
	ops, isObj := v.(map[string]any)
	if !isObj {
		return p.cmp(base, OpEq, v, path)
	}
	if len(ops) == 0 {
		return nil, &FilterError{Path: path, Err: errors.New("empty operator object")}
	}
	var all andNode
	for _, op := range sortedKeys(ops) {
		n, err := p.cmp(base, op, ops[op], path)
		if err != nil {
			return nil, err
		}
		all = append(all, n)
	}
	if len(all) == 1 {
		return all[0], nil
	}
	return all, nil
}

func (p *parser) cmp(base *cmpNode, op string, v any, path string) (fnode, error) {
	n := &cmpNode{field: base.field, key: base.key, op: op}
	ferr := func(format string, a ...any) error {
		return &FilterError{Path: path, Op: op, Err: fmt.Errorf(format, a...)}
	}
	var vals []any
	switch op {
	case OpEq, OpNe, OpGt, OpGte, OpLt, OpLte:
		vals = []any{v}
	case OpIn, OpNin:
		arr, ok := v.([]any)
		if !ok {
			return nil, ferr("want an array, got %s", jsonKind(v))
		}
		vals = arr
	default:
		return nil, &FilterError{Path: path, Op: op, Err: errUnknownOperator}
	}
	p.terms += len(vals) + 1
	if p.terms > MaxFilterTerms {
		return nil, ferr("more than %d terms", MaxFilterTerms)
	}
	ordered := op == OpGt || op == OpGte || op == OpLt || op == OpLte
	for _, raw := range vals {
		s, err := toScalar(raw)
		if err != nil {
			return nil, ferr("%v", err)
		}
		if ordered && s.kind != 's' && s.kind != 'n' {
			return nil, ferr("compares numbers or strings, got %s", jsonKind(raw))
		}
		switch n.field {
		case "role", "threadId":
			if n.field == "role" && ordered {
				// Roles have no order: {"role":{"$gt":"robot"}} took any
				// string and compared it byte-wise (fix52).
				return nil, ferr("role has no order: compare it with $eq, $ne, $in or $nin (user, assistant or tool)")
			}
			if s.kind != 's' {
				return nil, ferr("%s compares with strings, got %s", n.field, jsonKind(raw))
			}
			if n.field == "role" && !slices.Contains(filterRoles, s.s) {
				// A misspelt role found nothing, silently, while a
				// message's role is refused naming them.
				return nil, ferr("role must be user, assistant or tool (the stored roles), got %q", clipFilter(s.s))
			}
		case "seq":
			if s.kind != 'n' || s.n != float64(int64(s.n)) {
				return nil, ferr("seq compares with integers, got %s", jsonKind(raw))
			}
		case "createdAt":
			switch s.kind {
			case 'n':
			case 's':
				t, err := time.Parse(time.RFC3339Nano, s.s)
				if err != nil {
					return nil, ferr("createdAt wants an RFC 3339 time or Unix milliseconds: %v", err)
				}
				s = scalar{kind: 'n', n: float64(t.UnixMilli())}
			default:
				return nil, ferr("createdAt wants an RFC 3339 time or Unix milliseconds, got %s", jsonKind(raw))
			}
		}
		n.vals = append(n.vals, s)
	}
	return n, nil
}

// filterRoles are the roles a message is stored with: a role's $eq, $ne,
// $in or $nin value must be one of them (an ordered operator is refused).
var filterRoles = []string{"user", "assistant", "tool"}

// clipFilter shortens a value quoted in a FilterError to 32 bytes.
func clipFilter(s string) string {
	if len(s) <= 32 {
		return s
	}
	return strings.ToValidUTF8(s[:32], "") + "…"
}

func toScalar(v any) (scalar, error) {
	switch x := v.(type) {
	case nil:
		return scalar{kind: 'z'}, nil
	case bool:
		return scalar{kind: 'b', b: x}, nil
	case string:
		if strings.ContainsRune(x, 0) {
			return scalar{}, errNUL
		}
		return scalar{kind: 's', s: x}, nil
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return scalar{}, fmt.Errorf("number %s out of range", x)
		}
		return scalar{kind: 'n', n: f}, nil
	case float64:
		return scalar{kind: 'n', n: x}, nil
	default:
		return scalar{}, fmt.Errorf("want a JSON scalar, got %s", jsonKind(v))
	}
}

func (c *cmpNode) match(d *Doc) bool {
	got, present := c.value(d)
	switch c.op {
	case OpEq:
		return present && got == c.vals[0]
	case OpNe:
		return !present || got != c.vals[0]
	case OpIn:
		if !present {
			return false
		}
		for _, v := range c.vals {
			if got == v {
				return true
			}
		}
		return false
	case OpNin:
		if !present {
			return true
		}
		for _, v := range c.vals {
			if got == v {
				return false
			}
		}
		return true
	}
	want := c.vals[0]
	if !present || got.kind != want.kind {
		return false
	}
	var r int
	switch got.kind {
	case 'n':
		switch {
		case got.n < want.n:
			r = -1
		case got.n > want.n:
			r = 1
		}
	case 's':
		r = strings.Compare(got.s, want.s)
	default:
		return false
	}
	switch c.op {
	case OpGt:
		return r > 0
	case OpGte:
		return r >= 0
	case OpLt:
		return r < 0
	case OpLte:
		return r <= 0
	}
	return false
}

// value returns the document's value for the field, and whether it is present.
func (c *cmpNode) value(d *Doc) (scalar, bool) {
	switch c.field {
	case "role":
		return scalar{kind: 's', s: d.Role}, true
	case "threadId":
		return scalar{kind: 's', s: d.ThreadID}, true
	case "seq":
		return scalar{kind: 'n', n: float64(d.Seq)}, true
	case "createdAt":
		return scalar{kind: 'n', n: float64(d.CreatedAt.UnixMilli())}, true
	}
	var cur any = d.Metadata
	for _, k := range c.key {
		m, ok := cur.(map[string]any)
		if !ok {
			return scalar{}, false
		}
		if cur, ok = m[k]; !ok {
			return scalar{}, false
		}
	}
	s, err := toScalar(cur)
	if err != nil {
		return scalar{}, false // an object or array never equals a scalar
	}
	return s, true
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func joinPath(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func sortedKeys(m map[string]any) []string {
	// Sorted for deterministic error paths.
	return slices.Sorted(maps.Keys(m))
}

// FilterNode is a parsed filter as data, for a backend that evaluates
// filters itself (translating them to SQL): Op is OpAnd, OpOr or OpNot
// (Kids the operands; one for OpNot), or a comparison operator on Field
// ("role", "threadId", "seq", "createdAt" or "metadata", with Key the
// metadata path) against Values: string, float64, bool or nil (JSON null);
// createdAt values are Unix milliseconds. The semantics are Filter.Match's.
type FilterNode struct {
	// Op is OpAnd, OpOr, OpNot or a comparison operator ("$eq", "$in", …).
	Op string
	// Kids are the operands of OpAnd and OpOr (one for OpNot).
	Kids []FilterNode
	// Field is a comparison's field: "role", "threadId", "seq", "createdAt" or "metadata".
	Field string
	// Key is the metadata path, one element per dotted part.
	Key []string
	// Values are the operand values: string, float64, bool or nil; createdAt as Unix milliseconds.
	Values []any
}

// Tree returns the filter as a FilterNode; the nil filter's tree is an
// OpAnd of nothing (matches every message).
func (f *Filter) Tree() FilterNode {
	if f == nil || f.root == nil {
		return FilterNode{Op: OpAnd}
	}
	return treeOf(f.root)
}

func treeOf(n fnode) FilterNode {
	switch x := n.(type) {
	case andNode:
		return FilterNode{Op: OpAnd, Kids: treesOf(x)}
	case orNode:
		return FilterNode{Op: OpOr, Kids: treesOf(x)}
	case notNode:
		return FilterNode{Op: OpNot, Kids: []FilterNode{treeOf(x.n)}}
	case *cmpNode:
		out := FilterNode{Op: x.op, Field: x.field, Key: x.key}
		for _, v := range x.vals {
			switch v.kind {
			case 's':
				out.Values = append(out.Values, v.s)
			case 'n':
				out.Values = append(out.Values, v.n)
			case 'b':
				out.Values = append(out.Values, v.b)
			default:
				out.Values = append(out.Values, nil)
			}
		}
		return out
	}
	panic(fmt.Sprintf("recall: filter node %T", n))
}

func treesOf(ns []fnode) []FilterNode {
	out := make([]FilterNode, len(ns))
	for i, n := range ns {
		out[i] = treeOf(n)
	}
	return out
}
