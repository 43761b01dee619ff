package mcpserver_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mnemo-go/mnemo/mcpserver"
	"github.com/mnemo-go/mnemo/server"
)

// TestHTTPProxyHost: /mcp answers a request that reached the loopback
// address with another Host (a reverse proxy on the same machine passing
// the Host it was asked for, as docs/serve.md asks for the inspector's
// sign-in) as /v1 does: with a token file the bearer token is the guard.
// Before, the MCP SDK's own DNS-rebinding check refused it, a text/plain
// 403 "Forbidden: invalid Host header". Without a token file mnemo's
// loopback check still refuses such a Host.
func TestHTTPProxyHost(t *testing.T) {
	e := openEngine(t)
	_, _, tok := principals(t)
	for _, c := range []struct {
		name   string
		tokens *server.Tokens
		want   int
	}{
		{"TokenFile", tok, http.StatusOK},
		{"NoTokenFile", nil, http.StatusForbidden},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, err := server.New(server.Config{Engine: e, Tokens: c.tokens, Mount: map[string]func(*server.Principal) http.Handler{
				"/mcp": mcpserver.Handler(e, mcpserver.Options{}),
			}})
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(srv.Handler())
			defer ts.Close()
			for _, path := range []string{"/mcp", "/v1/threads"} {
				req := rpcRequest(t, http.MethodPost, ts.URL+path, "alice-secret-1", "",
					`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"v0"}}}`)
				if path != "/mcp" {
					req = rpcRequest(t, http.MethodGet, ts.URL+path, "alice-secret-1", "", "")
				}
				req.Host = "mnemo.example.com"
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != c.want {
					t.Errorf("%s with Host mnemo.example.com: %d %.200s, want %d", path, resp.StatusCode, body, c.want)
				}
			}
		})
	}
}
