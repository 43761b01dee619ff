package server_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestTokenNameLookAlike: a token file two of whose names read alike in
// the access log (equal under NFKC and case folding, or of one UTS #39
// confusable skeleton) is refused naming both entries by index, quoting
// both names and the first code point where they differ, never a secret.
// Before (walk45), "Ａlice" (full-width) and "Alice", "alice" and "Alice",
// and "Аlice" (Cyrillic А) and "Alice" were all accepted, and the log
// could not tell who made a request. Names that read differently are
// accepted.
func TestTokenNameLookAlike(t *testing.T) {
	file := func(a, b string) string {
		return fmt.Sprintf(`{"tokens":[{"name":%q,"token":"s3cret-aaaa","resources":["a"]},{"name":%q,"token":"s3cret-bbbb","resources":["b"]}]}`, a, b)
	}
	const why = ": the access log names a request by its token's name alone, so give each token a name that reads differently"
	for _, c := range []struct{ first, second, want string }{
		{"Alice", "Ａlice", `tokens[1].name: "Ａlice" reads as "Alice", the name of tokens[0] (it has U+FF21 where that has U+0041)`},
		{"Alice", "alice", `tokens[1].name: "alice" reads as "Alice", the name of tokens[0] (it has U+0061 where that has U+0041)`},
		{"Alice", "Аlice", `tokens[1].name: "Аlice" reads as "Alice", the name of tokens[0] (it has U+0410 where that has U+0041)`},
		{"alice", "аlice", `tokens[1].name: "аlice" reads as "alice", the name of tokens[0] (it has U+0430 where that has U+0061)`},
		{"ops", "OPS", `tokens[1].name: "OPS" reads as "ops", the name of tokens[0] (it has U+004F where that has U+006F)`},
		{"Ilse", "llse", `tokens[1].name: "llse" reads as "Ilse", the name of tokens[0] (it has U+006C where that has U+0049)`},
		{"file", "ﬁle", `tokens[1].name: "ﬁle" reads as "file", the name of tokens[0] (it has U+FB01 where that has U+0066)`},
		{"Bob", "Βοb", `tokens[1].name: "Βοb" reads as "Bob", the name of tokens[0] (it has U+0392 where that has U+0042)`}, // Greek
		// A name given that reads as an unnamed token's token-<index>.
		{"", "TOKEN-0", `tokens[1].name: "TOKEN-0" reads as "token-0", the name the log gives the nameless tokens[0] (it has U+0054 where that has U+0074)`},
		// A nameless token whose token-<index> reads as a name given: the
		// message does not quote a name the file does not give (rev47).
		{"TOKEN-1", "", `tokens[1].name: none is given, so the token is named "token-1" (token-<index>), which reads as "TOKEN-1", the name of tokens[0] (it has U+0074 where that has U+0054)`},
	} {
		_, err := server.ParseTokens([]byte(file(c.first, c.second)))
		if !errors.Is(err, server.ErrInvalidTokens) || err.Error() != "server: invalid token file: "+c.want+why {
			t.Errorf("%q, %q:\n got %v\nwant %s%s", c.first, c.second, err, c.want, why)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%q, %q: %v names a secret", c.first, c.second, err)
		}
	}
	for _, pair := range [][2]string{
		{"alice", "bob"}, {"alice", "alice-app"}, {"Алиса", "Alice"}, {"ops-1", "ops-2"}, {"café", "cafe-2"},
	} {
		if _, err := server.ParseTokens([]byte(file(pair[0], pair[1]))); err != nil {
			t.Errorf("%q, %q: %v", pair[0], pair[1], err)
		}
	}
}
