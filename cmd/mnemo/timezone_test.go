package main

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestConfigTimeZones: the stored configuration's timeZone and
// resourceTimeZones set the engine's zones; an unknown zone is refused
// naming its field.
func TestConfigTimeZones(t *testing.T) {
	getenv := func(string) string { return "" }
	c := &memoryConfig{TimeZone: "Europe/Paris", ResourceTimeZones: map[string]string{"kenji": "Asia/Tokyo", "fixed": "UTC-05:30"}}
	var cfg engine.Config
	if err := c.apply(&cfg, getenv, false); err != nil {
		t.Skipf("no tzdata here: %v", err)
	}
	if cfg.TimeZone == nil || cfg.TimeZone.String() != "Europe/Paris" {
		t.Fatalf("TimeZone %v", cfg.TimeZone)
	}
	if got := cfg.ResourceTimeZone("kenji"); got == nil || got.String() != "Asia/Tokyo" {
		t.Fatalf("kenji's zone %v", got)
	}
	if got := cfg.ResourceTimeZone("fixed"); got == nil || got.String() != "UTC-05:30" {
		t.Fatalf("fixed zone %v", got)
	}
	if got := cfg.ResourceTimeZone("ana"); got != nil {
		t.Fatalf("ana has no zone of her own, got %v", got)
	}
	for _, bad := range []*memoryConfig{{TimeZone: "Mars/Olympus"}, {ResourceTimeZones: map[string]string{"ana": "Nowhere/City"}}} {
		err := bad.apply(&engine.Config{}, getenv, false)
		if err == nil || !strings.Contains(err.Error(), "unknown time zone") || !strings.Contains(strings.ToLower(err.Error()), "timezone") {
			t.Fatalf("bad zone: %v", err)
		}
	}
}
