package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestContentEncodingRefused: a body sent with a Content-Encoding (gzip)
// is a 415 saying to send it uncompressed; before, its compressed bytes
// were read as JSON ("malformed JSON at byte 0").
func TestContentEncodingRefused(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	req, err := http.NewRequest("POST", h.ts.URL+"/v1/search", strings.NewReader(`{"resourceId":"res-bob","query":"one"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+bobToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "gzip")
	resp, err := h.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r := response{status: resp.StatusCode}
	r.body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if r.status != http.StatusUnsupportedMediaType || !strings.Contains(string(r.body), "uncompressed") {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
}
