package mcpserver_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestHTTPBodyBOM: a POST /mcp body that begins with a UTF-8 byte-order
// mark (Notepad's "UTF-8 with BOM", PowerShell 5) is read as the message
// after it, as /v1 reads a body; one that begins with a UTF-16 mark is a
// JSON-RPC parse error that names it. Before (readme57), both were the
// SDK's 400 text/plain "malformed payload: … invalid character 'ï'".
func TestHTTPBodyBOM(t *testing.T) {
	e := openEngine(t)
	ts := mcpHTTPServer(t, e)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"v0"}}}`
	status, ctype, answer := post(t, ts.URL+"/mcp", "\uFEFF"+initialize)
	if status != http.StatusOK || !strings.Contains(answer, `"serverInfo"`) {
		t.Fatalf("UTF-8 BOM: %d %s %.300s; want 200 and the initialize result", status, ctype, answer)
	}
	for _, mark := range []string{"\xFF\xFE", "\xFE\xFF"} {
		status, ctype, answer = post(t, ts.URL+"/mcp", mark+"{\x00}\x00")
		var rpc struct {
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		want := "Parse error: the body is UTF-16 (it begins with the byte-order mark " + strings.ToUpper(hexOf(mark)) + "): send JSON as UTF-8"
		if err := json.Unmarshal([]byte(answer), &rpc); err != nil || status != http.StatusBadRequest || ctype != "application/json" ||
			rpc.Error.Code != -32700 || rpc.Error.Message != want {
			t.Errorf("UTF-16 mark %X: %d %s %.300s (%v); want 400, -32700 %q", mark, status, ctype, answer, err, want)
		}
	}
}

func hexOf(s string) string {
	const digits = "0123456789abcdef"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(digits[s[i]>>4])
		b.WriteByte(digits[s[i]&15])
	}
	return b.String()
}
