package recall_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

func TestOptionsValidate(t *testing.T) {
	for name, o := range map[string]recall.Options{
		"NegativeTopK": {TopK: -1},
		"HugeTopK":     {TopK: recall.MaxTopK + 1},
		"NaNThreshold": {TopK: 1, Threshold: math.NaN()},
		"Threshold":    {TopK: 1, Threshold: 1.5},
		"Range":        {TopK: 1, MessageRange: recall.Range{Before: recall.MaxMessageRange + 1}},
		"Scope":        {TopK: 1, Scope: "all"},
		"Mode":         {TopK: 1, Mode: "semantic"},
		"Fusion":       {TopK: 1, Fusion: "max"},
	} {
		if err := o.Validate(); !errors.Is(err, recall.ErrInvalidOptions) {
			t.Errorf("%s: err = %v, want ErrInvalidOptions", name, err)
		}
	}
	ok := recall.Options{TopK: recall.MaxTopK, Threshold: -1, Scope: recall.ScopeThread, Mode: recall.ModeHybrid, Fusion: recall.FusionRRF}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestOptionErrorField: an out-of-range option is an *OptionError naming
// its JSON field (the HTTP API and MCP report it as recall.FIELD), and
// still ErrInvalidOptions.
func TestOptionErrorField(t *testing.T) {
	for field, o := range map[string]recall.Options{
		"topK":         {TopK: -1},
		"threshold":    {Threshold: 2},
		"messageRange": {MessageRange: recall.Range{Before: -1}},
		"scope":        {Scope: "world"},
		"mode":         {Mode: "fuzzy"},
		"fusion":       {Fusion: "max"},
	} {
		err := o.Validate()
		var oe *recall.OptionError
		if !errors.As(err, &oe) || oe.Field != field || !errors.Is(err, recall.ErrInvalidOptions) {
			t.Errorf("%s: %v (%T), want an *OptionError naming %s", field, err, err, field)
		}
	}
}

// TestRangeWording: messageRange's refusals are worded as topK's, the
// bound and what was given ("must be within [0, 20] on each side, got
// 25"; it said "is at most 20 on each side" and "must not be negative"),
// and a number no int holds is a *RangeNumberError that still matches
// ErrInvalidOptions and carries encoding/json's error, for the HTTP API
// to word it as any integer field's.
func TestRangeWording(t *testing.T) {
	for _, c := range []struct {
		r    recall.Range
		want string
	}{
		{recall.Range{Before: 25, After: 25}, "recall: invalid options: messageRange must be within [0, 20] on each side, got 25"},
		{recall.Range{Before: -1, After: -1}, "recall: invalid options: messageRange must be within [0, 20] on each side, got -1"},
		{recall.Range{Before: 1, After: 21}, `recall: invalid options: messageRange must be within [0, 20] on each side, got {"before":1,"after":21}`},
	} {
		o := recall.Options{MessageRange: c.r}
		if err := o.Validate(); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %q", c.r, err, c.want)
		}
	}
	for in, want := range map[string]string{
		`99999999999999999999`:            "recall: invalid options: messageRange must be a whole number within [0, 20], got 99999999999999999999",
		`1.5`:                             "recall: invalid options: messageRange must be a whole number within [0, 20], got 1.5",
		`{"before":99999999999999999999}`: "recall: invalid options: messageRange.before must be a whole number within [0, 20], got 99999999999999999999",
	} {
		var r recall.Range
		err := json.Unmarshal([]byte(in), &r)
		var rn *recall.RangeNumberError
		var te *json.UnmarshalTypeError
		if !errors.As(err, &rn) || !errors.As(err, &te) || !errors.Is(err, recall.ErrInvalidOptions) || err.Error() != want {
			t.Errorf("%s: %v (%T), want a *RangeNumberError %q", in, err, err, want)
		}
	}
	var r recall.Range
	if err := json.Unmarshal([]byte(`"wide"`), &r); !errors.Is(err, recall.ErrInvalidOptions) || !strings.Contains(err.Error(), `{"before":B,"after":A}`) {
		t.Errorf(`"wide": %v, want the two forms named`, err)
	}
	// Typed, for the HTTP API to word as any field's: another JSON type
	// (RangeTypeError, carrying encoding/json's error), another member
	// (RangeMemberError; it was encoding/json's text).
	var rt *recall.RangeTypeError
	var te *json.UnmarshalTypeError
	if err := json.Unmarshal([]byte(`{"before":"1"}`), &r); !errors.As(err, &rt) || rt.Side != "before" || !errors.As(err, &te) || !errors.Is(err, recall.ErrInvalidOptions) {
		t.Errorf(`{"before":"1"}: %v (%T), want a *RangeTypeError on before`, err, err)
	}
	var rm *recall.RangeMemberError
	if err := json.Unmarshal([]byte(`{"before":1,"sideways":2}`), &r); !errors.As(err, &rm) || rm.Member != "sideways" || !errors.Is(err, recall.ErrInvalidOptions) {
		t.Errorf(`{"sideways":2}: %v (%T), want a *RangeMemberError "sideways"`, err, err)
	}
	if err := json.Unmarshal([]byte(`{"Before":1,"AFTER":2}`), &r); err != nil || r != (recall.Range{Before: 1, After: 2}) {
		t.Errorf(`{"Before":1,"AFTER":2}: %v %+v, want encoding/json's case-insensitive match`, err, r)
	}
}
