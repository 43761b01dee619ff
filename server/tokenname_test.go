package server_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestTokenNameUnseen: a token name holding a character a reader of the
// access log does not see, or cannot tell from a space, is refused naming
// it by its code point, quoting the name with it escaped and saying what
// the name reads as (each blank a space, each invisible nothing); a name
// of visible characters and inner spaces (any script, combining accents)
// is accepted. Before (walk42 #9), "-\u200b" was accepted and its requests
// logged as the anonymous "-"; before walk44 F10, every refusal said
// ("-\u200b" reads as "-") whatever the name.
func TestTokenNameUnseen(t *testing.T) {
	for _, c := range []struct {
		name  string
		bad   rune   // 0: accepted
		quote string // the name as the refusal quotes it
		reads string
	}{
		{"-\u200b", 0x200B, `"-\u200b"`, "-"},           // zero-width space (Cf)
		{"ops\u2060", 0x2060, `"ops\u2060"`, "ops"},     // word joiner
		{"o\u00adps", 0x00AD, `"o\u00adps"`, "ops"},     // soft hyphen
		{"\ufeffops", 0xFEFF, `"\ufeffops"`, "ops"},     // byte-order mark
		{"a\u202eb", 0x202E, `"a\u202eb"`, "ab"},        // bidi override
		{"a\u200fb", 0x200F, `"a\u200fb"`, "ab"},        // right-to-left mark
		{"a\u2066b", 0x2066, `"a\u2066b"`, "ab"},        // bidi isolate
		{"a\nb", '\n', `"a\nb"`, "a b"},                 // control (Cc)
		{"a\u0085b", 0x0085, `"a\u0085b"`, "a b"},       // C1 control (White_Space)
		{"Ana\u00a0B", 0x00A0, `"Ana\u00a0B"`, "Ana B"}, // no-break space
		{"a\u3000b", 0x3000, `"a\u3000b"`, "a b"},       // ideographic space
		{"a\u2028b", 0x2028, `"a\u2028b"`, "a b"},       // line separator
		{"a\ue000b", 0xE000, `"a\ue000b"`, "ab"},        // private use
		{"-\ufe0f", 0xFE0F, `"-\ufe0f"`, "-"},           // variation selector
		{"a\u034fb", 0x034F, `"a\u034fb"`, "ab"},        // combining grapheme joiner
		{"\u3164", 0x3164, `"\u3164"`, ""},              // Hangul filler (a letter to %q)
		{"-\u3164", 0x3164, `"-\u3164"`, "-"},
		{"\u2800", 0x2800, `"\u2800"`, " "},    // braille pattern blank (So)
		{"-\u2800", 0x2800, `"-\u2800"`, "- "}, // walk44 F9
		{"\u2013\u2800", 0x2800, `"–\u2800"`, "– "},
		{"a\U000e0100b", 0xE0100, `"a\U000e0100b"`, "ab"}, // variation selector 17 (Mn)
		{"alice app", 0, "", ""},
		{"café-ops", 0, "", ""},
		{"cafe\u0301", 0, "", ""},
		{"東京", 0, "", ""},
		{"ops_1.2", 0, "", ""},
	} {
		file := fmt.Sprintf(`{"tokens":[{"name":%q,"token":"s3cret-aaaa","resources":["alice"]}]}`, c.name)
		file = strings.ReplaceAll(file, `\x`, `\u00`) // Go's %q escapes JSON does not read
		file = strings.ReplaceAll(file, `\U000e0100`, `\udb40\udd00`)
		_, err := server.ParseTokens([]byte(file))
		if c.bad == 0 {
			if err != nil {
				t.Errorf("name %q: %v, want it accepted", c.name, err)
			}
			continue
		}
		want := fmt.Sprintf("tokens[0].name: %s holds %U, which a reader of the access log does not see (it reads as %q): ", c.quote, c.bad, c.reads)
		if !errors.Is(err, server.ErrInvalidTokens) || !strings.Contains(fmt.Sprint(err), want) {
			t.Errorf("name %q:\n got %v\nwant ErrInvalidTokens with %s", c.name, err, want)
		}
	}
}

// TestTokenNameLooksReserved: walk44 F9. A name of one dash other than
// '-' (which reads as "-", the access log's name for a request without a
// valid token) is refused naming its code point, and so is "operator"
// (the log's name for every request of a server without a token file)
// for a token that may not do all the operator may, and so is a name that
// reads as it (case, width, look-alike letters); dashes inside a name,
// "operator" and its look-alikes for an erasing ["*"] token, and names
// merely holding the word are accepted.
func TestTokenNameLooksReserved(t *testing.T) {
	const dash = `tokens[0].name: %q is %U, which reads as "-", the access log's name for a request without a valid token: give the token another name`
	const operator = `tokens[0].name: "operator" is the access log's name for every request of a server without a token file, which may touch every resource and erase, and this token may not: give the token another name`
	const likeOperator = `tokens[0].name: %q reads as "operator", the access log's name for every request of a server without a token file, which may touch every resource and erase, and this token may not: give the token another name`
	for _, c := range []struct {
		name, resources string
		erase           bool
		want            string // "": accepted
	}{
		{"\u2010", `["a"]`, false, fmt.Sprintf(dash, "\u2010", 0x2010)}, // hyphen
		{"\u2011", `["a"]`, false, fmt.Sprintf(dash, "\u2011", 0x2011)}, // non-breaking hyphen
		{"\u2012", `["a"]`, false, fmt.Sprintf(dash, "\u2012", 0x2012)}, // figure dash
		{"\u2013", `["a"]`, false, fmt.Sprintf(dash, "\u2013", 0x2013)}, // en dash
		{"\u2014", `["*"]`, true, fmt.Sprintf(dash, "\u2014", 0x2014)},  // em dash
		{"\u2212", `["a"]`, false, fmt.Sprintf(dash, "\u2212", 0x2212)}, // minus sign
		{"\uff0d", `["a"]`, false, fmt.Sprintf(dash, "\uff0d", 0xFF0D)}, // full-width hyphen-minus
		{"operator", `["a"]`, true, operator},
		{"operator", `["*"]`, false, operator},
		{"operator", `["a","b"]`, false, operator},
		{"operator", `["*"]`, true, ""},
		// A name that reads as "operator" (tok48, walk47): case, width
		// and a Cyrillic о were accepted.
		{"Operator", `["a"]`, false, fmt.Sprintf(likeOperator, "Operator")},
		{"OPERATOR", `["*"]`, false, fmt.Sprintf(likeOperator, "OPERATOR")},
		{"оperator", `["a"]`, true, fmt.Sprintf(likeOperator, "оperator")},
		{"ｏperator", `["a"]`, false, fmt.Sprintf(likeOperator, "ｏperator")},
		{"operat0r", `["a"]`, false, fmt.Sprintf(likeOperator, "operat0r")},
		{"Operator", `["*"]`, true, ""},
		{"operators", `["a"]`, false, ""},
		{"operator-2", `["a"]`, false, ""},
		{"\u2013\u2013", `["a"]`, false, ""},
		{"a\u2013b", `["a"]`, false, ""},
		{"--", `["a"]`, false, ""},
		{"\u301c", `["a"]`, false, ""}, // wave dash, a Japanese name's mark
	} {
		file := fmt.Sprintf(`{"tokens":[{"name":%q,"token":"s3cret-aaaa","resources":%s,"erase":%t}]}`, c.name, c.resources, c.erase)
		_, err := server.ParseTokens([]byte(file))
		if c.want == "" {
			if err != nil {
				t.Errorf("name %q resources %s erase %t: %v, want it accepted", c.name, c.resources, c.erase, err)
			}
			continue
		}
		if !errors.Is(err, server.ErrInvalidTokens) || !strings.HasSuffix(fmt.Sprint(err), c.want) {
			t.Errorf("name %q resources %s erase %t:\n got %v\nwant ErrInvalidTokens ending %s", c.name, c.resources, c.erase, err, c.want)
		}
	}
}

// TestTokenNameFaultOnce: a refusal of a name the file gives quotes the
// name once, without "; tokens[i] is the token named …" after it, which
// said it again (walk42 #11); a token given no name is still named by its
// resources.
func TestTokenNameFaultOnce(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{`{"tokens":[{"name":"-","token":"s3cret-cccc","resources":["*"]}]}`,
			`server: invalid token file: tokens[0].name: "-" is the access log's name for a request without a valid token: give the token another name`},
		{`{"tokens":[{"name":"ops ","token":"s3cret-cccc","resources":["*"]}]}`,
			`server: invalid token file: tokens[0].name: "ops " has blanks around it, which a reader of the access log does not see ("ops " reads as "ops"): remove them`},
		{`{"tokens":[{"name":"-\u200b","token":"s3cret-cccc","resources":["*"]}]}`,
			`server: invalid token file: tokens[0].name: "-\u200b" holds U+200B, which a reader of the access log does not see (it reads as "-"): give the token a name of visible characters and spaces`},
		{`{"tokens":[{"name":"a","token":"s3cret-aaaa","resources":["a"]},{"name":"a","token":"s3cret-bbbb","resources":["b"]}]}`,
			`server: invalid token file: tokens[1].name: "a" is given twice (tokens[0] is named so too): the access log names a request by its token's name alone, so give each token a name of its own`},
		{`{"tokens":[{"name":"token-1","token":"s3cret-aaaa","resources":["a"]},{"token":"s3cret-bbbb","resources":["b"]}]}`,
			`server: invalid token file: tokens[1].name: none is given, so the token is named "token-1" (token-<index>), which tokens[0] is named too: the access log names a request by its token's name alone, so give each token a name of its own; tokens[1] is the token without a name, for resources b`},
	} {
		_, err := server.ParseTokens([]byte(c.file))
		if !errors.Is(err, server.ErrInvalidTokens) || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.file, err, c.want)
		}
	}
}

// TestTokenNameHoldsSecret: 9d90b3ab. A name that is a token's secret
// with a blank or an invisible character added, or that holds one, is
// refused naming the entry by its index, and no refusal quotes it: the
// blanks and unseen checks quoted "s3cret-alice " before the secret check
// ran, and "x-s3cret-alice" was accepted and written to the access log.
// A refusal of another field of that entry names it by its resources.
func TestTokenNameHoldsSecret(t *testing.T) {
	const holds = "name: holds the secret of a token of this file"
	for _, c := range []struct{ name, want string }{
		{"s3cret-alice ", holds},
		{" s3cret-alice", holds},
		{"\u200bs3cret-alice", holds},
		{"s3cret-alice\t", holds},
		{"s3cret-alice\u0000", holds},
		{"s3cret\u202e-alice", holds},
		{"s3cret-alice\u00a0", holds},
		{"x-s3cret-alice", holds},
		{"S3CRET-ALICE-2", holds},
		{"x-s3crеt-аlice", holds}, // Cyrillic е and а
		{"s3cret-alic", ""},
		{"alice", ""},
	} {
		for _, file := range []string{
			fmt.Sprintf(`{"tokens":[{"name":%q,"token":"s3cret-alice","resources":["a"]}]}`, c.name),
			fmt.Sprintf(`{"tokens":[{"name":"b","token":"s3cret-alice","resources":["b"]},{"name":%q,"token":"s3cret-other","resources":["a"]}]}`, c.name),
		} {
			file = strings.ReplaceAll(file, `\x00`, `\u0000`)
			_, err := server.ParseTokens([]byte(file))
			if c.want == "" {
				if err != nil {
					t.Errorf("%s: %v, want it accepted", file, err)
				}
				continue
			}
			if !errors.Is(err, server.ErrInvalidTokens) || !strings.Contains(fmt.Sprint(err), c.want) {
				t.Errorf("%s:\n got %v\nwant ErrInvalidTokens with %s", file, err, c.want)
			}
			if strings.Contains(strings.ToLower(fmt.Sprint(err)), "alice") {
				t.Errorf("%s: the refusal quotes the name: %v", file, err)
			}
		}
	}
	_, err := server.ParseTokens([]byte(`{"tokens":[{"name":"x-s3cret-alice","token":"s3cret-alice","resources":["a","a"]}]}`))
	const entry = `tokens[0].name: holds the secret of a token of this file`
	if !errors.Is(err, server.ErrInvalidTokens) || !strings.Contains(fmt.Sprint(err), entry) {
		t.Errorf("resource twice: got %v, want %s", err, entry)
	}
	_, err = server.ParseTokens([]byte(`{"tokens":[{"name":"x-s3cret-alice","token":"s3cret-alice","resources":["a"],"erase":"yes"}]}`))
	const decode = `tokens[0] is the token whose name holds a secret (not quoted), for resources a`
	if !errors.Is(err, server.ErrInvalidTokens) || !strings.HasSuffix(fmt.Sprint(err), decode) {
		t.Errorf("erase a string: got %v, want it to end %s", err, decode)
	}
}
