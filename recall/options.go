package recall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Scope says which messages a search may reach.
type Scope string

// Scopes.
const (
	// ScopeThread searches the query's thread only.
	ScopeThread Scope = "thread"
	// ScopeResource searches every thread of the query's resource, never
	// another resource's.
	ScopeResource Scope = "resource"
)

// Mode selects the channels a search uses.
type Mode string

// Modes.
const (
	ModeLexical Mode = "lexical" // BM25 only
	ModeVector  Mode = "vector"  // embeddings only
	ModeHybrid  Mode = "hybrid"  // both, fused
)

// MaxMessageRange bounds Range.Before and Range.After, so a range never grows
// to a whole long thread.
const MaxMessageRange = 20

// DefaultTopK is the TopK of resolved options whose TopK is 0.
const DefaultTopK = 5

// MaxTopK bounds Options.TopK: recall feeds a prompt, and a larger topK only
// costs memory and time (each hit allocates before range expansion).
const MaxTopK = 1000

// Range is the message range each hit is expanded with: Before messages
// before it and After messages after it, by seq in the hit's own thread.
// In JSON it is one number (both sides) or {"before": B, "after": A}.
type Range struct {
	// Before is how many messages before the hit, by seq; 0 for none.
	Before int `json:"before"`
	// After is how many messages after the hit, by seq; 0 for none.
	After int `json:"after"`
}

// UnmarshalJSON accepts a number or {"before", "after"}. A number an int
// cannot hold (99999999999999999999, 1e400) or that is no whole number
// (1.5) is a *RangeNumberError; another value (a string, an array), or a
// member's, is a *RangeTypeError; a member other than before and after
// (matched as encoding/json matches, case-insensitively) a
// *RangeMemberError. Each matches ErrInvalidOptions.
func (r *Range) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] != '{' {
		var n int
		if err := json.Unmarshal(b, &n); err != nil {
			return rangeDecodeError(err, "")
		}
		*r = Range{Before: n, After: n}
		return nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return fmt.Errorf("%w: messageRange: %v", ErrInvalidOptions, err)
	}
	for k := range members {
		if !strings.EqualFold(k, "before") && !strings.EqualFold(k, "after") {
			return &RangeMemberError{Member: k}
		}
	}
	type plain Range
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return rangeDecodeError(err, te.Field)
		}
		return fmt.Errorf("%w: messageRange: %v", ErrInvalidOptions, err)
	}
	*r = Range(p)
	return nil
}

// RangeNumberError is Range.UnmarshalJSON's error for a number that no
// int holds or that is not whole, in messageRange or in its member Side
// ("before", "after"; "" for the one-number form). It wraps
// ErrInvalidOptions and encoding/json's *json.UnmarshalTypeError, so a
// reader of JSON (mnemo's HTTP API) words it as it words such a number in
// any integer field ("recall.topK" is out of range for an integer: …).
type RangeNumberError struct {
	// Side is "before" or "after" for a member of the object form, ""
	// for the one-number form.
	Side string
	// Number is the number as written.
	Number string
	// Err is encoding/json's error.
	Err *json.UnmarshalTypeError
}

// Error implements error: "recall: invalid options: messageRange must be
// a whole number within [0, 20], got 1.5".
func (e *RangeNumberError) Error() string {
	return fmt.Sprintf("%v: %s must be a whole number within [0, %d], got %s", ErrInvalidOptions, rangeName(e.Side), MaxMessageRange, e.Number)
}

// Unwrap returns ErrInvalidOptions and the *json.UnmarshalTypeError.
func (e *RangeNumberError) Unwrap() []error { return []error{ErrInvalidOptions, e.Err} }

// RangeTypeError is Range.UnmarshalJSON's error for a value of another
// JSON type than a number (a string, an array, a boolean, null) as
// messageRange, or than a number as its member Side. It wraps
// ErrInvalidOptions and a *json.UnmarshalTypeError whose Value is the
// JSON type given ("string") and whose Type is Range for the whole range
// (a number or an object), int for a member, so a reader of JSON words it
// as any field of the wrong type ("recall.topK" must be a JSON number,
// not a string).
type RangeTypeError struct {
	// Side is "before" or "after" for a member, "" for the range.
	Side string
	// Err is encoding/json's error, its Type set as above.
	Err *json.UnmarshalTypeError
}

// Error implements error: "recall: invalid options: messageRange must be
// a whole number or {"before":B,"after":A}, not a JSON string".
func (e *RangeTypeError) Error() string {
	if e.Side != "" {
		return fmt.Sprintf("%v: %s must be a whole number, not a JSON %s", ErrInvalidOptions, rangeName(e.Side), e.Err.Value)
	}
	return fmt.Sprintf("%v: messageRange must be a whole number or {\"before\":B,\"after\":A}, not a JSON %s", ErrInvalidOptions, e.Err.Value)
}

// Unwrap returns ErrInvalidOptions and the *json.UnmarshalTypeError.
func (e *RangeTypeError) Unwrap() []error { return []error{ErrInvalidOptions, e.Err} }

// RangeMemberError is Range.UnmarshalJSON's error for a member of the
// object form other than before and after. It wraps ErrInvalidOptions.
type RangeMemberError struct {
	// Member is the member's name as written.
	Member string
}

// Error implements error: `recall: invalid options: messageRange has no
// member "sideways" (before, after)`.
func (e *RangeMemberError) Error() string {
	return fmt.Sprintf("%v: messageRange has no member %q (before, after)", ErrInvalidOptions, e.Member)
}

// Unwrap returns ErrInvalidOptions.
func (e *RangeMemberError) Unwrap() error { return ErrInvalidOptions }

// rangeName is "messageRange", or "messageRange.SIDE" for a member.
func rangeName(side string) string {
	if side == "" {
		return "messageRange"
	}
	return "messageRange." + side
}

// rangeDecodeError is UnmarshalJSON's error for err, encoding/json's
// decoding of the range's number (side "") or member side.
func rangeDecodeError(err error, side string) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		te = &json.UnmarshalTypeError{}
	}
	if n, ok := strings.CutPrefix(te.Value, "number "); ok {
		return &RangeNumberError{Side: side, Number: n, Err: te}
	}
	t := reflect.TypeFor[int]()
	if side == "" {
		t = reflect.TypeFor[Range]()
	}
	return &RangeTypeError{Side: side, Err: &json.UnmarshalTypeError{Value: te.Value, Type: t, Field: te.Field, Offset: te.Offset}}
}

// MarshalJSON writes one number when Before == After, else the object.
func (r Range) MarshalJSON() ([]byte, error) {
	if r.Before == r.After {
		return []byte(strconv.Itoa(r.Before)), nil
	}
	type plain Range
	return json.Marshal(plain(r))
}

// Options are the recall options of a search and of LoadContext. The zero
// value of each field means its default; Resolve applies the defaults.
type Options struct {
	// TopK is the number of hits before range expansion, within
	// [0, MaxTopK]; 0 means DefaultTopK.
	TopK int `json:"topK"`
	// Threshold is the minimum cosine similarity (in [-1, 1]) a message's
	// vector-channel score must reach for the message to be a vector-channel
	// candidate. Zero means no threshold. It does not apply to the lexical
	// channel (BM25 scores are not comparable across queries): in hybrid
	// mode a lexical candidate under it is fused with its own cosine,
	// which its hit does not show (Hit.Vector nil).
	Threshold float64 `json:"threshold,omitempty"`
	// Scope is ScopeThread or ScopeResource; "" means ScopeResource.
	Scope Scope `json:"scope,omitempty"`
	// MessageRange expands each hit with its neighbours by seq.
	MessageRange Range `json:"messageRange"`
	// Filter is a JSON filter (see Filter) applied before topK; empty means none.
	Filter json.RawMessage `json:"filter,omitempty"`
	// Mode selects the channels; "" means ModeHybrid.
	Mode Mode `json:"mode,omitempty"`
	// Fusion names the fusion of the two channels in hybrid mode; "" means
	// the measured default.
	Fusion string `json:"fusion,omitempty"`
}

// Resolve validates o (Validate) and returns it with every default
// applied: TopK 0 becomes DefaultTopK, Scope "" ScopeResource, Mode ""
// ModeHybrid and Fusion "" DefaultFusion. Search runs the resolved value,
// and the engine records the same value in the run's memctx record, so the
// record names the defaults that ran. Resolving resolved options returns
// them unchanged. Errors are Validate's.
func (o Options) Resolve() (Options, error) {
	if err := o.Validate(); err != nil {
		return Options{}, err
	}
	if o.TopK == 0 {
		o.TopK = DefaultTopK
	}
	if o.Scope == "" {
		o.Scope = ScopeResource
	}
	if o.Mode == "" {
		o.Mode = ModeHybrid
	}
	if o.Fusion == "" {
		o.Fusion = DefaultFusion
	}
	return o, nil
}

// OptionError is an out-of-range field of Options. Field is its JSON name
// (topK, threshold, messageRange, scope, mode or fusion); Rule says what it
// must be and what it got. It wraps ErrInvalidOptions, so errors.Is works
// as before, and its text is "recall: invalid options: FIELD RULE".
type OptionError struct {
	// Field is the option's JSON name: topK, threshold, messageRange, scope, mode or fusion.
	Field string
	// Rule says what it must be and what it got.
	Rule string
}

// Error implements error.
func (e *OptionError) Error() string {
	return fmt.Sprintf("%v: %s %s", ErrInvalidOptions, e.Field, e.Rule)
}

// Unwrap returns ErrInvalidOptions.
func (e *OptionError) Unwrap() error { return ErrInvalidOptions }

func badOption(field, rule string, args ...any) error {
	return &OptionError{Field: field, Rule: fmt.Sprintf(rule, args...)}
}

// Validate reports an out-of-range option as an *OptionError (wrapping
// ErrInvalidOptions), or an invalid filter as a *FilterError.
func (o *Options) Validate() error {
	switch {
	case o.TopK < 0 || o.TopK > MaxTopK:
		return badOption("topK", "must be within [0, %d], got %d", MaxTopK, o.TopK)
	case math.IsNaN(o.Threshold) || o.Threshold < -1 || o.Threshold > 1:
		return badOption("threshold", "must be within [-1, 1], got %g", o.Threshold)
	case !o.MessageRange.valid():
		got, _ := o.MessageRange.MarshalJSON()
		return badOption("messageRange", "must be within [0, %d] on each side, got %s", MaxMessageRange, got)
	}
	switch o.Scope {
	case "", ScopeThread, ScopeResource:
	default:
		return badOption("scope", "must be thread or resource, got %q", o.Scope)
	}
	switch o.Mode {
	case "", ModeLexical, ModeVector, ModeHybrid:
	default:
		return badOption("mode", "must be lexical, vector or hybrid, got %q", o.Mode)
	}
	switch o.Fusion {
	case "", FusionWeighted, FusionRRF:
	default:
		return badOption("fusion", "must be %s or %s, got %q", FusionWeighted, FusionRRF, o.Fusion)
	}
	if len(o.Filter) > 0 {
		if _, err := ParseFilter(o.Filter); err != nil {
			return err
		}
	}
	return nil
}
