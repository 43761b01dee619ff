package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigRepeatedMember: a --config file naming a member twice in one
// object is refused naming its path, as a request body is; before, the
// last one was kept silently ({"recall":{"topK":5000,"topK":5}} read as 5).
func TestConfigRepeatedMember(t *testing.T) {
	for body, want := range map[string]string{
		`{"recall": {"topK": 5000, "topK": 5}}`:                       `"recall.topK" is given twice`,
		`{"recentN": 3, "recentN": 4}`:                                `"recentN" is given twice`,
		`{"lifecycle": {"quota": {"refuse": true, "refuse": false}}}`: `"lifecycle.quota.refuse" is given twice`,
	} {
		path := filepath.Join(t.TempDir(), "mnemo-config.json")
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := readMemoryConfig(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want it to say %s", body, err, want)
		}
	}
}
