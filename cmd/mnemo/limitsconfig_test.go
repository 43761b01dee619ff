package main

import (
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestConfigLimitsRefused: a negative limit in mnemo.json (limits.* or
// server.maxBodyBytes) is refused when the configuration is applied,
// naming the field, as a negative observe threshold is; 0 or none keeps
// meaning the default. Before, "maxQueryBytes": -1 was taken silently as
// the default 16 KiB. A negative quota bound or retention (keepRuns,
// maxAge) is refused the same way: each was read as no bound at all. A
// duration too long for a time.Duration says so.
func TestConfigLimitsRefused(t *testing.T) {
	getenv := func(string) string { return "" }
	for want, c := range map[string]*memoryConfig{
		"limits.maxContentBytes must be >= 0 (0: the default), got -1":      {Limits: &limitsConfig{MaxContentBytes: -1}},
		"limits.maxToolResultBytes must be >= 0 (0: the default), got -2":   {Limits: &limitsConfig{MaxToolResultBytes: -2}},
		"limits.maxMetadataBytes must be >= 0 (0: the default), got -3":     {Limits: &limitsConfig{MaxMetadataBytes: -3}},
		"limits.maxMessagesPerAppend must be >= 0 (0: the default), got -4": {Limits: &limitsConfig{MaxMessagesPerAppend: -4}},
		"limits.maxQueryBytes must be >= 0 (0: the default), got -5":        {Limits: &limitsConfig{MaxQueryBytes: -5}},
		"server.maxBodyBytes must be >= 0 (0: the default), got -6":         {Server: &serverConfig{MaxBodyBytes: -6}},
		// The quota's and retention's bounds: a negative one meant "none".
		"lifecycle.quota.resourceMessages must be >= 0 (0: no bound), got -7":   {Lifecycle: &lifecycleConfig{Quota: engine.Quota{ResourceMessages: -7}}},
		"lifecycle.quota.storeBytes must be >= 0 (0: no bound), got -8":         {Lifecycle: &lifecycleConfig{Quota: engine.Quota{StoreBytes: -8}}},
		"retention.keepRuns must be >= 0 (0: no limit by count), got -9":        {Retention: &retentionConfig{KeepRuns: -9}},
		`retention.maxAge must not be negative (0: no limit by age), got "-5h"`: {Retention: &retentionConfig{MaxAge: "-5h"}},
		// A duration too long for Go: it read "time: invalid duration", or
		// "must be a … Go duration".
		`retention.maxAge: "99999999h" is out of range (the longest duration is 2562047h47m16.854775807s, about 292 years)`:     {Retention: &retentionConfig{MaxAge: "99999999h"}},
		`lifecycle.idleTtl: "99999999h" is out of range (the longest duration is 2562047h47m16.854775807s, about 292 years)`:    {Lifecycle: &lifecycleConfig{IdleTTL: "99999999h"}},
		`lifecycle.sweepEvery: "99999999h" is out of range (the longest duration is 2562047h47m16.854775807s, about 292 years)`: {Lifecycle: &lifecycleConfig{SweepEvery: "99999999h"}},
	} {
		if err := c.apply(&engine.Config{}, getenv, false); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", want, err, want)
		}
	}
	ok := &memoryConfig{Limits: &limitsConfig{MaxQueryBytes: 4096}, Server: &serverConfig{MaxBodyBytes: 1 << 20}}
	cfg := engine.Config{}
	if err := ok.apply(&cfg, getenv, false); err != nil || cfg.Limits.MaxQueryBytes != 4096 {
		t.Errorf("valid limits: %v (maxQueryBytes %d)", err, cfg.Limits.MaxQueryBytes)
	}
}
