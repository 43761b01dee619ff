package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeConfigTooLarge: a --config file (or its schemaFile) over
// maxConfigBytes is refused saying so, before anything is created; before,
// it was read whole whatever its size (--config /dev/zero grew serve's
// memory until it was killed).
func TestServeConfigTooLarge(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(big, []byte(`{"recentN": 10`+strings.Repeat(" ", maxConfigBytes)+`}`), 0o600); err != nil {
		t.Fatal(err)
	}
	withSchema := filepath.Join(t.TempDir(), "cfg.json")
	if err := os.WriteFile(withSchema, []byte(`{"workingMemory": {"schemaFile": "`+big+`"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []string{big, withSchema} {
		dir := filepath.Join(t.TempDir(), "new")
		code, _, errOut := run(t, nil, "--dir", dir, "serve", "--listen", "127.0.0.1:0", "--config", cfg)
		if code == 0 || !strings.Contains(errOut, "larger than") {
			t.Errorf("--config %s: exit %d, %q; want refused as larger than %d bytes", filepath.Base(cfg), code, errOut, maxConfigBytes)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("--config %s: the data directory was created (%v)", filepath.Base(cfg), err)
		}
	}
}
