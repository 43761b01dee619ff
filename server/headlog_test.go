package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestAccessLogHeadBytes: the access log's bytes of a HEAD are 0, as
// sent; a GET's are its body's. A HEAD logged the size of the body that
// net/http dropped (a HEAD of an inspector page: "bytes":11816).
func TestAccessLogHeadBytes(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "hello there")
	for _, tc := range []struct {
		name, method, path, token string
		status                    int
		sent                      bool
	}{
		{"Get", "GET", "/v1/threads/t-bob", bobToken, 200, true},
		{"Head", "HEAD", "/v1/threads/t-bob", bobToken, 200, false},
		{"HeadNoToken", "HEAD", "/v1/threads/t-bob", "", 401, false},
		{"HeadNotFound", "HEAD", "/v1/threads/nosuch", bobToken, 404, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.logs.Reset()
			if r := h.do(tc.method, tc.path, tc.token, nil); r.status != tc.status {
				t.Fatalf("%s %s: %d, want %d", tc.method, tc.path, r.status, tc.status)
			}
			var line struct {
				Method string `json:"method"`
				Bytes  *int64 `json:"bytes"`
			}
			for _, l := range strings.Split(strings.TrimSpace(h.logs.String()), "\n") {
				if err := json.Unmarshal([]byte(l), &line); err == nil && line.Method == tc.method && line.Bytes != nil {
					break
				}
				line.Bytes = nil
			}
			switch {
			case line.Bytes == nil:
				t.Fatalf("no access-log line with bytes for %s %s:\n%s", tc.method, tc.path, h.logs.String())
			case tc.sent && *line.Bytes == 0, !tc.sent && *line.Bytes != 0:
				t.Fatalf("%s %s logged bytes %d, want a body's size %v", tc.method, tc.path, *line.Bytes, tc.sent)
			}
		})
	}
}
