package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

func TestOffline(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--offline"}, &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "offline-1") || !strings.Contains(s, "Recall changed the answer in") {
		t.Fatalf("output:\n%s", s)
	}
}

func TestTokenOverlap(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want float64
	}{
		{"the seat is 43", "The seat is 43.", 1},
		{"abc", "xyz", 0},
		{"a b c d", "a b", 2 * 1 * 0.5 / 1.5},
		{"", "", 1},
	} {
		if got := TokenOverlap(tt.a, tt.b); got < tt.want-1e-9 || got > tt.want+1e-9 {
			t.Errorf("TokenOverlap(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestMissingDirNotCreated: pointed at a path that holds no data
// directory, the evaluator fails with engine.ErrNotDataDir and creates
// nothing (it used to create an empty directory and report "no runs").
func TestMissingDirNotCreated(t *testing.T) {
	t.Setenv("MNEMO_MODEL", "m")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	dir := filepath.Join(t.TempDir(), "typo")
	err := run(context.Background(), []string{"--dir", dir, "--thread", "t"}, &bytes.Buffer{})
	if !errors.Is(err, engine.ErrNotDataDir) {
		t.Errorf("err = %v, want ErrNotDataDir", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s was created (stat: %v)", dir, err)
	}
}
