package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
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
