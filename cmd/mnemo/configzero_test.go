package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestStoredConfigZeroBounds: the stored mnemo.json gives a zero bound as
// it gives a zero keepRuns or quota bound, left out (it means what leaving
// it out means, no bound: docs/operations.md), and reads back to the same
// retention and lifecycle as the file given; lifecycle.sweepEvery "0s",
// which turns the sweep off, is kept. Storing what was stored writes the
// same bytes. Before, "maxAge": "0s" and "idleTtl": "0s" were kept while
// "keepRuns": 0 was dropped.
func TestStoredConfigZeroBounds(t *testing.T) {
	for _, tc := range []struct {
		given       string
		want, leave []string // members the stored file holds, and does not
	}{
		{`{"retention": {"keepRuns": 0, "maxAge": "0s"}, "lifecycle": {"idleTtl": "0s", "sweepEvery": "0s"}}`,
			[]string{`"sweepEvery": "0s"`}, []string{"retention", "keepRuns", "maxAge", "idleTtl"}},
		{`{"retention": {"keepRuns": 5, "maxAge": "0h0m"}, "lifecycle": {"idleTtl": "0m"}}`,
			[]string{`"keepRuns": 5`}, []string{"maxAge", "idleTtl"}},
		{`{"retention": {"keepRuns": 0, "maxAge": "720h"}, "lifecycle": {"idleTtl": "24h"}}`,
			[]string{`"maxAge": "720h"`, `"idleTtl": "24h"`}, []string{"keepRuns"}},
		{`{"retention": {}}`, nil, []string{"retention"}},
	} {
		t.Run(tc.given, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(t.TempDir(), "given.json")
			if err := os.WriteFile(file, []byte(tc.given), 0o600); err != nil {
				t.Fatal(err)
			}
			given, err := readMemoryConfig(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := given.store(dir); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, StoredConfigFile))
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range tc.want {
				if !strings.Contains(string(b), m) {
					t.Errorf("stored %s lacks %s", b, m)
				}
			}
			for _, m := range tc.leave {
				if strings.Contains(string(b), `"`+m+`"`) {
					t.Errorf("stored %s holds %q", b, m)
				}
			}
			stored, err := storedMemoryConfig(dir)
			if err != nil {
				t.Fatal(err)
			}
			if g, s := boundsOf(t, given), boundsOf(t, stored); !reflect.DeepEqual(g, s) {
				t.Errorf("read back as %+v, given as %+v", s, g)
			}
			if before, _ := readMemoryConfig(file); !reflect.DeepEqual(before, given) {
				t.Fatalf("store changed the configuration it was given: %+v, read %+v", given, before)
			}
			again := t.TempDir()
			if err := stored.store(again); err != nil {
				t.Fatal(err)
			}
			if b2, _ := os.ReadFile(filepath.Join(again, StoredConfigFile)); string(b2) != string(b) {
				t.Errorf("stored again:\n%s\nwas:\n%s", b2, b)
			}
		})
	}
}

// boundsOf is the retention and lifecycle c sets.
func boundsOf(t *testing.T, c *memoryConfig) engine.Config {
	t.Helper()
	var cfg engine.Config
	if c.Retention != nil {
		r, err := c.Retention.retention()
		if err != nil {
			t.Fatal(err)
		}
		cfg.Retention = r
	}
	if err := c.Lifecycle.apply(&cfg); err != nil {
		t.Fatal(err)
	}
	return engine.Config{Retention: cfg.Retention, Lifecycle: cfg.Lifecycle}
}
