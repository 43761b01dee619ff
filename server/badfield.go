package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
	"github.com/mnemo-go/mnemo/recall"
)

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// badField finds the member of a JSON body that fails to decode, for an
// error that encoding/json reports without its full place (a value's
// UnmarshalJSON failing, a wrong type or an unknown field inside an array
// element: encoding/json says "messages.content", not which message).
// data is the body, t the type it decodes into; the path names fields by
// their JSON names and array elements by index ("messages[1].createdAt").
// It returns the path and that member's own error, or "" and nil when no
// member alone fails.
func (w *memberWalk) badField(data []byte, t reflect.Type, path string) (string, error) {
	if w.stop() {
		return "", nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if path != "" && reflect.PointerTo(t).Implements(unmarshalerType) {
		return leafError(data, t, path)
	}
	switch t.Kind() {
	case reflect.Struct:
		return w.badStructField(data, t, path)
	case reflect.Slice, reflect.Array:
		var elems []json.RawMessage
		if json.Unmarshal(data, &elems) != nil {
			return leafError(data, t, path)
		}
		for i, e := range elems {
			if p, err := w.badField(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p, err
			}
		}
		return "", nil
	}
	return leafError(data, t, path)
}

// leafError decodes data into a value of type t as decodeBody does. A
// message range's side at fault is named in the path
// ("recall.messageRange.before"), as a member of any object is, and its
// unknown member is an unknown field ("recall.messageRange.sideways").
func leafError(data []byte, t reflect.Type, path string) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(reflect.New(t).Interface()); err != nil {
		var rn *recall.RangeNumberError
		var rt *recall.RangeTypeError
		var rm *recall.RangeMemberError
		switch {
		case errors.As(err, &rn) && rn.Side != "":
			return joinPath(path, rn.Side), err
		case errors.As(err, &rt) && rt.Side != "":
			return joinPath(path, rt.Side), err
		case errors.As(err, &rm):
			// Worded as any object's unknown member (it was encoding/json's
			// `unknown field "sideways"`, without its path).
			return joinPath(path, rm.Member), &unknownFieldError{near: jsonkey.Closest(rm.Member, []string{"before", "after"})}
		}
		return path, err
	}
	return "", nil
}

// badStructField is badField for a struct: a member no field takes is at
// fault (an unknown field), else each member against the field it fills
// (matched as encoding/json matches: the JSON name, else
// case-insensitively), embedded structs' fields included.
func (w *memberWalk) badStructField(data []byte, t reflect.Type, path string) (string, error) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return leafError(data, t, path)
	}
	fields := structFields(t)
	for k := range obj {
		if fieldFor(fields, k) == nil {
			p := joinPath(path, k)
			return p, &unknownFieldError{near: jsonkey.Closest(k, fieldNames(fields)), under: memberOf(fields, k), names: fieldNames(fields)}
		}
	}
	for _, f := range fields {
		for k, raw := range obj {
			if fieldFor([]jsonField{f}, k) != nil {
				if p, err := w.badField(raw, f.typ, joinPath(path, f.name)); p != "" {
					return p, err
				}
			}
		}
	}
	return "", nil
}

var errUnknownField = errors.New("unknown field")

// UnknownField finds a member of the JSON value data that no field of
// the Go type t takes, or that names its field in another case, for a
// reader that validates the rest itself (mnemo's MCP tools, whose
// arguments the SDK checks against a schema). It returns the member's
// path ("messages[1].contnet") and the API's wording of the fault, as a
// request body's: `unknown field "messages[1].contnet" (did you mean
// "content"?)`, `unknown field "threadid" (did you mean "threadId"? names
// are case-sensitive)`; "", "" when there is no such member, or when
// another member fails first (a wrong type), which the caller reports its
// own way.
func UnknownField(data []byte, t reflect.Type) (path, detail string) {
	p, err := unboundedWalk().badField(data, t, "")
	switch {
	case p != "" && errors.Is(err, errUnknownField):
		return p, unknownFieldDetail(p, err)
	case p != "":
		return "", ""
	}
	if m, f := unboundedWalk().caseVariant(data, t, ""); m != "" {
		return m, caseVariantDetail(m, f)
	}
	return "", ""
}

// FieldFault words why the JSON value data does not decode into the Go
// type t by the member at fault, in the API's words, for a reader of a
// file (mnemo serve's --config): `unknown field "recall.mdoe" (did you
// mean "mode"?)`, `"recall.topK" must be a JSON number, not a string`,
// `"lifecycle.idleTtl" is malformed: …`. encoding/json's own words name
// neither the path of an unknown member nor the file's types. It returns
// "", "" when no member alone fails (a syntax error: the caller words it).
func FieldFault(data []byte, t reflect.Type) (path, detail string) {
	p, err := unboundedWalk().badField(data, t, "")
	if p == "" {
		return "", ""
	}
	return p, faultDetail(p, err)
}

// faultDetail words err, the decoding error of the member at path p
// (badField's), as FieldFault does.
func faultDetail(p string, err error) string {
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, errUnknownField):
		return unknownFieldDetail(p, err)
	case errors.As(err, &te):
		return typeDetail(p, te)
	}
	return fmt.Sprintf("%s is malformed: %v", fieldName(p), err)
}

// WrongType finds a member of the JSON value data of another JSON type
// than the Go field it fills takes, or a number the field cannot hold,
// for a reader that validates the rest itself (mnemo's MCP tools: the
// SDK's schema refuses the first as `validating /properties/topK: type: 5
// has type "string", want "integer"`, and takes any number as an integer,
// then fails decoding one too large with encoding/json's words, naming Go
// types). It returns the member's path and the API's wording, as a
// request body's: `"topK" must be a JSON number, not a string`, `"topK"
// is out of range for an integer: 99999999999999999999`, `"topK" must be
// an integer, not 1.5`; "", "" when there is none, when another member
// fails first, or for a whole number an int field holds written 5.0 or
// 1e3 (the SDK takes it).
func WrongType(data []byte, t reflect.Type) (path, detail string) {
	p, err := unboundedWalk().badField(data, t, "")
	var te *json.UnmarshalTypeError
	if p == "" || !errors.As(err, &te) {
		return "", ""
	}
	n, isNumber := strings.CutPrefix(te.Value, "number ")
	if !isNumber || jsonKind(te.Type) != "number" {
		return p, typeDetail(p, te)
	}
	if k := te.Type.Kind(); k != reflect.Float32 && k != reflect.Float64 {
		if whole, fits := wholeNumber(te.Type, n); whole != "" && fits {
			return "", "" // a whole number written 5.0 or 1e3
		}
	}
	return p, numberDetail(fieldName(p), te.Type, n)
}

// unknownFieldError is badStructField's error for a member no field takes:
// errors.Is(err, errUnknownField), with the field it most likely meant
// (jsonkey.Closest; "" when none is close), the member of that object
// whose own object takes the name (memberOf: "recall" for "topK"; ""
// when none does) and the names that object takes (nil when unknown).
type unknownFieldError struct {
	near, under string
	names       []string
}

func (e *unknownFieldError) Error() string        { return errUnknownField.Error() }
func (e *unknownFieldError) Is(target error) bool { return target == errUnknownField }

// unknownFieldDetail words the unknown member at path f: `unknown field
// "messages[0].contnet" (did you mean "content"?)`, the suggestion left
// out when err carries none.
func unknownFieldDetail(f string, err error) string {
	var ue *unknownFieldError
	if errors.As(err, &ue) {
		return jsonkey.UnknownDetail(f, ue.near)
	}
	return jsonkey.UnknownDetail(f, "")
}

// caseVariantDetail words member m, which names field f in another case:
// `unknown field "Erase" (did you mean "erase"? names are case-sensitive)`.
func caseVariantDetail(m, f string) string {
	return jsonkey.UnknownDetail(m, f)
}

// fieldNames lists the JSON names of fields.
func fieldNames(fields []jsonField) []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	return names
}

type jsonField struct {
	name string
	typ  reflect.Type
	// omit is true when the tag says omitempty or omitzero: a JSON schema
	// inferred from t (the MCP tools') does not require the member.
	omit bool
}

// structFields lists the JSON members t takes, embedded structs' included.
func structFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && name == "" {
			et := f.Type
			for et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				out = append(out, structFields(et)...)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		omit := slices.ContainsFunc(strings.Split(opts, ","), func(o string) bool { return o == "omitempty" || o == "omitzero" })
		out = append(out, jsonField{name: name, typ: f.Type, omit: omit})
	}
	return out
}

// fieldFor is the field a member named k fills: the exact JSON name, else
// one equal under case folding, as encoding/json matches.
func fieldFor(fields []jsonField, k string) *jsonField {
	for i := range fields {
		if fields[i].name == k {
			return &fields[i]
		}
	}
	for i := range fields {
		if strings.EqualFold(fields[i].name, k) {
			return &fields[i]
		}
	}
	return nil
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// jsonKind names a Go type as a JSON client knows it; a message range
// (recall.Range) is a number or an object.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case reflect.TypeFor[recall.Range]():
		return "number or object"
	case stateContentType: // the state's text, or the object itself
		return "string or object"
	case timeType: // RFC 3339 text
		return "string"
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number"
	}
	return t.Kind().String()
}

// typeDetail words a wrong-type error for a JSON client:
// "must be a JSON number, not a string". A number the field's Go type
// cannot hold is "out of range" (1e400 for a float, an integer too large
// for its int), or "must be an integer" (1.5 for an int).
func typeDetail(field string, te *json.UnmarshalTypeError) string {
	v := te.Value
	if strings.HasPrefix(v, "number ") && jsonKind(te.Type) == "number" {
		return numberDetail(fieldName(field), te.Type, strings.TrimPrefix(v, "number "))
	}
	return fmt.Sprintf("%s must be a JSON %s, not %s", fieldName(field), jsonKind(te.Type), jsonValue(v))
}

// jsonValue names the JSON type v of an *json.UnmarshalTypeError's Value
// with its article: "an array", "a boolean", "a string".
func jsonValue(v string) string {
	switch {
	case v == "array" || v == "object":
		return "an " + v
	case v == "bool":
		return "a boolean"
	case strings.HasPrefix(v, "number"):
		return "a number"
	}
	return "a " + v
}

// numberDetail words why the JSON number n does not fit the Go type t.
// A whole number written with an exponent or a decimal point (1e3, 2.0),
// which encoding/json refuses for an integer field, is told how to write
// it: "must be a whole number written without an exponent: 1000, not
// 1e3" (it said "must be an integer, not 1e3", which 1e3 is).
func numberDetail(name string, t reflect.Type, n string) string {
	if t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64 {
		return fmt.Sprintf("%s is out of range for a number: %s", name, n)
	}
	whole, fits := wholeNumber(t, n)
	switch {
	case whole == "":
		return fmt.Sprintf("%s must be an integer, not %s", name, n)
	case !fits:
		return fmt.Sprintf("%s is out of range for an integer: %s", name, n)
	case whole == strings.TrimPrefix(n, "+"):
		// Digits only, yet refused: out of range (-1 for a uint included).
		return fmt.Sprintf("%s is out of range for an integer: %s", name, n)
	case strings.ContainsAny(n, "eE"):
		return fmt.Sprintf("%s must be a whole number written without an exponent: %s, not %s", name, whole, n)
	}
	return fmt.Sprintf("%s must be a whole number written without a decimal point: %s, not %s", name, whole, n)
}

// maxExponent bounds the exponent wholeNumber evaluates: past it no
// integer field holds the number (1e400 is out of range) or none is whole
// (1e-400), and the number is not spelt out in digits.
const maxExponent = 100

// wholeNumber is the JSON number n written in digits when its value is a
// whole number ("1000" for 1e3, "2" for 2.0, "-5" for -5), "" when it is
// not (1.5, 1e-3); fits reports that the integer type t holds it.
func wholeNumber(t reflect.Type, n string) (whole string, fits bool) {
	if mant, exp, ok := strings.Cut(strings.ToLower(n), "e"); ok {
		e, err := strconv.Atoi(exp)
		zero := strings.Trim(mant, "-+0.") == ""
		switch {
		case err != nil:
			return "", false
		case zero:
			return "0", true
		case e > maxExponent:
			return n, false
		case e < -maxExponent:
			return "", false
		}
	}
	r, ok := new(big.Rat).SetString(n)
	if !ok || !r.IsInt() {
		return "", false
	}
	i := r.Num()
	lo, hi := new(big.Int), new(big.Int).Lsh(big.NewInt(1), uint(t.Bits()))
	if t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64 {
		hi.Rsh(hi, 1)
		lo.Neg(hi)
	}
	return i.String(), i.Cmp(lo) >= 0 && i.Cmp(hi) < 0
}
