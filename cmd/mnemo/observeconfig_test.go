package main

import (
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
)

// TestConfigObserveRefused: an observe section the observer would refuse
// at its first use (a negative threshold, reflectThreshold or chunkTokens,
// an unknown scope) is refused when the configuration is applied, so
// `mnemo serve --config` fails before listening, naming the field, as the
// --threshold flags of `mnemo observe` do. Before, serve listened and
// stored it, and every observation then failed ("negative threshold").
func TestConfigObserveRefused(t *testing.T) {
	getenv := func(string) string { return "" }
	for want, o := range map[string]*observeConfig{
		"observe.threshold must be >= 0, got -1":                                              {Threshold: -1},
		"observe.reflectThreshold must be >= 0, got -5":                                       {ReflectThreshold: -5},
		"observe.chunkTokens must be >= 0, got -2":                                            {ChunkTokens: -2},
		"observe.maxAnswerTokens must be >= 0, got -3":                                        {MaxAnswerTokens: -3},
		"observe.maxAnswerTokens must be at most 1048576 (0: the default, 4096), got 1048577": {MaxAnswerTokens: 1<<20 + 1},
		`observe.scope must be thread or resource, got "bogus"`:                               {Scope: "bogus"},
		"observe.maxUnobservedTokens must be >= 0 (0: the default) or -1 (no bound), got -2":  {MaxUnobservedTokens: -2},
	} {
		for _, withModel := range []bool{false, true} {
			err := (&memoryConfig{Observe: o}).apply(&engine.Config{}, getenv, withModel)
			if err == nil || err.Error() != want {
				t.Errorf("observe %+v (model %v): %v, want %q", *o, withModel, err, want)
			}
		}
	}
	ok := &memoryConfig{Observe: &observeConfig{Threshold: 100, ReflectThreshold: 200, Scope: "resource"}}
	if err := ok.apply(&engine.Config{}, getenv, false); err != nil {
		t.Errorf("a valid observe section: %v", err)
	}
	for _, in := range []int{0, 16384} {
		var cfg engine.Config
		if err := (&memoryConfig{Observe: &observeConfig{MaxAnswerTokens: in}}).apply(&cfg, getenv, false); err != nil || cfg.Observe.MaxAnswerTokens != in {
			t.Errorf("maxAnswerTokens %d: %v, engine gets %d", in, err, cfg.Observe.MaxAnswerTokens)
		}
	}
	for in, want := range map[int]int{0: 0, 5000: 5000, -1: engine.NoUnobservedBound} {
		var cfg engine.Config
		if err := (&memoryConfig{Observe: &observeConfig{MaxUnobservedTokens: in}}).apply(&cfg, getenv, false); err != nil || cfg.Observe.MaxUnobservedTokens != want {
			t.Errorf("maxUnobservedTokens %d: %v, engine gets %d, want %d", in, err, cfg.Observe.MaxUnobservedTokens, want)
		}
	}
}

// TestConfigObserveCallTimeout: observe.callTimeout in mnemo.json sets
// engine.ObserveConfig.CallTimeout, the bound on one model call (none: the
// default); a value that is no positive Go duration is refused naming the
// field. There was no such setting: the bound was observe.DefaultCallTimeout
// (2 minutes), named by no doc, and a hung model's `mnemo observe` failed
// after 121 s with "context deadline exceeded".
func TestConfigObserveCallTimeout(t *testing.T) {
	getenv := func(string) string { return "" }
	for _, c := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"", 0, ""},
		{"90s", 90 * time.Second, ""},
		{"5m", 5 * time.Minute, ""},
		{"0", 0, `observe.callTimeout: must be a positive Go duration such as "90s" (none: the default, 2m0s), got "0"`},
		{"-1s", 0, `observe.callTimeout: must be a positive Go duration such as "90s" (none: the default, 2m0s), got "-1s"`},
		{"soon", 0, `observe.callTimeout: must be a positive Go duration such as "90s" (none: the default, 2m0s), got "soon"`},
		{"9999999h", 0, `observe.callTimeout: "9999999h" ` + durationRange},
	} {
		var cfg engine.Config
		err := (&memoryConfig{Observe: &observeConfig{CallTimeout: c.in}}).apply(&cfg, getenv, false)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("callTimeout %q: %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || cfg.Observe.CallTimeout != c.want {
			t.Errorf("callTimeout %q: %v, engine gets %s, want %s", c.in, err, cfg.Observe.CallTimeout, c.want)
		}
	}
}
