package recall_test

import (
	"errors"
	"math"
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
