package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestConfigLimitsRefused: a negative limit in mnemo.json (limits.*) is
// refused when the configuration is applied, and one only mnemo serve
// uses (server.maxBodyBytes, server.maxConnections, server.requestTimeout, or a requestTimeout
// below 1s, lifecycle.sweepEvery) by checkServed,
// naming the field, as a negative observe threshold is; 0 or none keeps
// meaning the default. Before, "maxQueryBytes": -1 was taken silently as
// the default 16 KiB. A negative quota bound or retention (keepRuns,
// maxAge) is refused the same way: each was read as no bound at all. A
// duration too long for a time.Duration says so.
func TestConfigLimitsRefused(t *testing.T) {
	getenv := func(string) string { return "" }
	for want, c := range map[string]*memoryConfig{
		// engine.Config.RecentN: a negative one was read as the default 10.
		"recentN must be >= 0 (0: the default), got -1":                     {RecentN: -1},
		"limits.maxContentBytes must be >= 0 (0: the default), got -1":      {Limits: &limitsConfig{MaxContentBytes: -1}},
		"limits.maxToolResultBytes must be >= 0 (0: the default), got -2":   {Limits: &limitsConfig{MaxToolResultBytes: -2}},
		"limits.maxMetadataBytes must be >= 0 (0: the default), got -3":     {Limits: &limitsConfig{MaxMetadataBytes: -3}},
		"limits.maxMessagesPerAppend must be >= 0 (0: the default), got -4": {Limits: &limitsConfig{MaxMessagesPerAppend: -4}},
		"limits.maxQueryBytes must be >= 0 (0: the default), got -5":        {Limits: &limitsConfig{MaxQueryBytes: -5}},
		// The quota's and retention's bounds: a negative one meant "none".
		"lifecycle.quota.resourceMessages must be >= 0 (0: no bound), got -7":   {Lifecycle: &lifecycleConfig{Quota: engine.Quota{ResourceMessages: -7}}},
		"lifecycle.quota.storeBytes must be >= 0 (0: no bound), got -8":         {Lifecycle: &lifecycleConfig{Quota: engine.Quota{StoreBytes: -8}}},
		"retention.keepRuns must be >= 0 (0: no limit by count), got -9":        {Retention: &retentionConfig{KeepRuns: -9}},
		`retention.maxAge must not be negative (0: no limit by age), got "-5h"`: {Retention: &retentionConfig{MaxAge: "-5h"}},
		// working.Config.MaxChars: a negative one was read as 8000.
		"workingMemory.maxChars must be >= 0 (0: the default, 8000), got -1": {WorkingMemory: &wmConfig{Template: "# Notes\n", MaxChars: -1}},
		// Refused already (engine.Open now refuses them too, naming
		// Recall.Scope and WorkingMemory): the file's own names.
		`recall.scope must be thread or resource, got "bogus"`:        {Recall: &recall.Options{Scope: "bogus"}},
		`workingMemory.scope must be thread or resource, got "bogus"`: {WorkingMemory: &wmConfig{Template: "# Notes\n", Scope: "bogus"}},
		// A duration too long for Go: it read "time: invalid duration", or
		// "must be a … Go duration".
		`retention.maxAge: "99999999h" is out of range (the longest duration is 2562047h47m16.854775807s, about 292 years)`:  {Retention: &retentionConfig{MaxAge: "99999999h"}},
		`lifecycle.idleTtl: "99999999h" is out of range (the longest duration is 2562047h47m16.854775807s, about 292 years)`: {Lifecycle: &lifecycleConfig{IdleTTL: "99999999h"}},
	} {
		if err := c.apply(&engine.Config{}, getenv, false); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", want, err, want)
		}
	}
	// What only mnemo serve uses is checkServed's (servedonly_test.go).
	for want, c := range map[string]*memoryConfig{
		"server.maxBodyBytes must be >= 0 (0: the default), got -6":                                                    {Server: &serverConfig{MaxBodyBytes: -6}},
		"server.maxConnections must be >= 0 (0: the default), got -2":                                                  {Server: &serverConfig{MaxConnections: -2}},
		`server.requestTimeout: must be a non-negative Go duration such as "5m" (0: the default, 1 minute), got "-1m"`: {Server: &serverConfig{RequestTimeout: "-1m"}},
		`server.requestTimeout: must be a non-negative Go duration such as "5m" (0: the default, 1 minute), got "5"`:   {Server: &serverConfig{RequestTimeout: "5"}},
		// Below server.MinRequestTimeout every request, or some, was a 503.
		`server.requestTimeout: "1ns" is below 1s, the shortest: a shorter timeout answers requests that would succeed with 503 "timeout" (0: the default, 1 minute)`:   {Server: &serverConfig{RequestTimeout: "1ns"}},
		`server.requestTimeout: "999ms" is below 1s, the shortest: a shorter timeout answers requests that would succeed with 503 "timeout" (0: the default, 1 minute)`: {Server: &serverConfig{RequestTimeout: "999ms"}},
		`server.requestTimeout: "99999999h" is out of range (the longest duration is 2562047h47m16.854775807s, about 292 years)`:                                        {Server: &serverConfig{RequestTimeout: "99999999h"}},
		`lifecycle.sweepEvery: "99999999h" is out of range (the longest duration is 2562047h47m16.854775807s, about 292 years)`:                                         {Lifecycle: &lifecycleConfig{SweepEvery: "99999999h"}},
	} {
		if err := c.checkServed(); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", want, err, want)
		}
	}
	ok := &memoryConfig{Limits: &limitsConfig{MaxQueryBytes: 4096}, Server: &serverConfig{MaxBodyBytes: 1 << 20, RequestTimeout: "5m"}}
	cfg := engine.Config{}
	if err := ok.apply(&cfg, getenv, false); err != nil || ok.checkServed() != nil || cfg.Limits.MaxQueryBytes != 4096 {
		t.Errorf("valid limits: %v (maxQueryBytes %d)", err, cfg.Limits.MaxQueryBytes)
	}
}

// TestConfigAnswerBelowContent: a limits.maxAnswerBytes below
// limits.maxContentBytes (each as given, or its default) is refused when
// the configuration is applied, naming both fields and their values, as
// engine.Open refuses it: under it a thread whose newest message is
// larger than the bound loaded no context at all ("maxAnswerBytes": 1000
// was taken, and every mnemo context of such a thread exited 1). mnemo
// context with such a mnemo.json says so and reads nothing.
func TestConfigAnswerBelowContent(t *testing.T) {
	getenv := func(string) string { return "" }
	const rest = ", the content one message may hold: a thread whose newest message is larger would load no context; raise limits.maxAnswerBytes or lower limits.maxContentBytes"
	for want, l := range map[string]*limitsConfig{
		"limits.maxAnswerBytes (1000) must be at least limits.maxContentBytes (262144, the default)" + rest:       {MaxAnswerBytes: 1000},
		"limits.maxAnswerBytes (1000) must be at least limits.maxContentBytes (1001)" + rest:                      {MaxAnswerBytes: 1000, MaxContentBytes: 1001},
		"limits.maxAnswerBytes (16777216, the default) must be at least limits.maxContentBytes (33554432)" + rest: {MaxContentBytes: 32 << 20},
	} {
		if err := (&memoryConfig{Limits: l}).apply(&engine.Config{}, getenv, false); err == nil || err.Error() != want {
			t.Errorf("%+v: %v\nwant %q", *l, err, want)
		}
	}
	for _, l := range []*limitsConfig{nil, {}, {MaxAnswerBytes: 1000, MaxContentBytes: 1000}, {MaxAnswerBytes: 1 << 20}} {
		if err := (&memoryConfig{Limits: l}).apply(&engine.Config{}, getenv, false); err != nil {
			t.Errorf("%+v: %v, want none", l, err)
		}
	}

	dir := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(`{"limits": {"maxAnswerBytes": 1000}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "context", "--thread", "t1")
	if code == 0 || out != "" || !strings.Contains(stderr, "limits.maxAnswerBytes (1000) must be at least limits.maxContentBytes (262144, the default)") {
		t.Fatalf("mnemo context: exit %d, stdout %q, stderr %q; want a failure naming both limits", code, out, stderr)
	}
}
