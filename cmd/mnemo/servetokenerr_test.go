package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestServeTokenFileError: mnemo serve's refusal of a token file says it
// once, without the Go package ("server: ") and without naming the token
// again at the end. Before (walk42 #11): `mnemo serve: server: invalid
// token file: tokens[0].name: "-" is …: give the token another name;
// tokens[0] is the token named "-"`.
func TestServeTokenFileError(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{`{"tokens":[{"name":"-","token":"s3cret-cccc-cccc","resources":["*"],"erase":true}]}`,
			`mnemo serve: invalid token file: tokens[0].name: "-" is the access log's name for a request without a valid token: give the token another name` + "\n"},
		{`{"tokens":[{"name":"bob","token":"short","resources":["b"]}]}`,
			`mnemo serve: invalid token file: tokens[0].token: must be at least 8 characters without surrounding spaces; tokens[0] is the token named "bob"` + "\n"},
	} {
		tokens := filepath.Join(t.TempDir(), "tokens.json")
		if err := os.WriteFile(tokens, []byte(c.file), 0o600); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "data")
		code, _, stderr := run(t, nil, "--dir", dir, "serve", "--listen", "127.0.0.1:0", "--tokens", tokens)
		if code != 1 || stderr != c.want {
			t.Errorf("serve --tokens %s: exit %d, stderr\n%s want exit 1 and\n%s", c.file, code, stderr, c.want)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("the refused serve created %s (%v)", dir, err)
		}
	}
}
