package main

import (
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestConfigLimitsRefused: a negative limit in mnemo.json (limits.* or
// server.maxBodyBytes) is refused when the configuration is applied,
// naming the field, as a negative observe threshold is; 0 or none keeps
// meaning the default. Before, "maxQueryBytes": -1 was taken silently as
// the default 16 KiB.
func TestConfigLimitsRefused(t *testing.T) {
	getenv := func(string) string { return "" }
	for want, c := range map[string]*memoryConfig{
		"limits.maxContentBytes must be >= 0 (0: the default), got -1":      {Limits: &limitsConfig{MaxContentBytes: -1}},
		"limits.maxToolResultBytes must be >= 0 (0: the default), got -2":   {Limits: &limitsConfig{MaxToolResultBytes: -2}},
		"limits.maxMetadataBytes must be >= 0 (0: the default), got -3":     {Limits: &limitsConfig{MaxMetadataBytes: -3}},
		"limits.maxMessagesPerAppend must be >= 0 (0: the default), got -4": {Limits: &limitsConfig{MaxMessagesPerAppend: -4}},
		"limits.maxQueryBytes must be >= 0 (0: the default), got -5":        {Limits: &limitsConfig{MaxQueryBytes: -5}},
		"server.maxBodyBytes must be >= 0 (0: the default), got -6":         {Server: &serverConfig{MaxBodyBytes: -6}},
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
