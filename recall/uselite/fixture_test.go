package uselite_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// reference is testdata/reference.json, written by testdata/reference.js
// with the model package's own TensorFlow.js runtime.
type reference struct {
	Package string `json:"package"`
	Runtime string `json:"runtime"`
	Backend string `json:"backend"`
	Texts   []struct {
		Text   string    `json:"text"`
		Tokens []int     `json:"tokens"`
		Vector []float64 `json:"vector"`
	} `json:"texts"`
}

func loadReference(tb testing.TB) reference {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "reference.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(b, &ref); err != nil {
		tb.Fatal(err)
	}
	if got, want := len(ref.Texts), 15; got < want {
		tb.Fatalf("reference texts=%d, want >= %d", got, want)
	}
	return ref
}
