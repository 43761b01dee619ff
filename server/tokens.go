package server

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// AllResources in a token's Resources makes it an operator token: it may
// touch every resource.
const AllResources = "*"

// TokenFile is the JSON document of a token file (mnemo serve --tokens):
//
//	{"tokens": [
//	  {"name": "alice-app", "token": "s3cret-1", "resources": ["alice"]},
//	  {"name": "ops", "token": "s3cret-2", "resources": ["*"], "erase": true}
//	]}
type TokenFile struct {
	// Tokens (tokens) are the bearer tokens, each with its name and the
	// resources it may touch.
	Tokens []Token `json:"tokens"`
}

// Token is one bearer token and what it may touch.
type Token struct {
	// Name identifies the token in access logs and metrics; it is never the
	// secret. Empty means "token-<index>". Two tokens of one name are
	// refused (ParseTokens), as are two whose names read alike (equal
	// under NFKC and case folding, or of one UTS #39 confusable skeleton:
	// "alice", "Ａlice" and "Аlice" (Cyrillic А) read as "Alice"), two
	// of one secret, a name that is, reads as or holds a token's secret
	// (blanks, invisible characters, case, width and look-alike letters
	// aside: "x-s3cret-alice"; secrets are at least 8 characters, so a
	// name holding one is no accident), the
	// name "-", "operator" or a name that reads as it (unless the token
	// may do all the operator may), a name with blanks around it and one holding a character a reader of
	// the log does not see (a control or format character, a blank other
	// than the space, a default-ignorable or unassigned code point).
	Name string `json:"name,omitempty"`
	// Token is the secret a client sends as "Authorization: Bearer <token>".
	// At least 8 characters, with no space and no control character.
	Token string `json:"token"`
	// Resources are the resource ids the token may touch, or ["*"] for all
	// ("*" only alone: ["alice", "*"] is refused; an id given twice is
	// refused). An id is
	// engine.ValidNewID: "." and ".." and ids beginning with "erased-",
	// which no new data may name, are refused (ParseTokens).
	Resources []string `json:"resources"`
	// Erase allows the DELETE routes and the MCP memory_delete tool.
	Erase bool `json:"erase,omitempty"`
}

// Tokens is a parsed token file. It is safe for concurrent use (read-only
// after parsing).
type Tokens struct {
	byHash map[[32]byte]*Principal
}

// Principal is who a request acts as: the operator (no token file, or a "*"
// token) or a tenant limited to some resources.
type Principal struct {
	// Name is the token's name ("operator" without a token file).
	Name string
	// All is true for an operator: every resource.
	All bool
	// Resources are the resources a tenant may touch (nil when All).
	Resources map[string]bool
	// Erase allows erasure.
	Erase bool
	// EraseHint is the refusal of an erasure when Erase is false, saying
	// how to allow it; empty means a token's: "this token may not erase;
	// give it "erase": true in the token file". (mnemo mcp over stdio, which
	// has no token file, names its flag.)
	EraseHint string
	// ResourceHint is the refusal of a request that needs a resource and
	// names none that anything decides (RequireResource); empty means a
	// token's: "resourceId is required unless the thread is a stored one
	// of yours or the token has one resource". (mnemo mcp over stdio,
	// which has no token, names its flag.)
	ResourceHint string
	// WorkingMemoryOffHint is the detail of the working-memory-off problem
	// (engine.ErrNoWorkingMemory) for this principal, saying how to turn
	// working memory on; empty means WorkingMemoryOffDetail, mnemo
	// serve's. (mnemo mcp over stdio, which takes no --config, names the
	// data directory's mnemo.json.)
	WorkingMemoryOffHint string
	// OutsideHint, when not empty, is said of a resource the principal
	// may not touch, after `resource "ID" `, in place of "resource not
	// found": mnemo mcp over stdio, whose user chose the resources
	// (--resources), names the flag. Empty means not found, as for an
	// unknown resource: a token's refusal tells a tenant nothing of
	// another's resources.
	OutsideHint string
}

// Operator is the principal of every request when the server has no token
// file: every resource, erasure allowed. Its ResourceHint names no token
// (it said "…or the token has one resource" where there was none).
var Operator = &Principal{Name: "operator", All: true, Erase: true,
	ResourceHint: "resourceId is required unless the thread is a stored one: without a token file (serve --tokens) a request may touch every resource, so name the one to use"}

// Allows reports whether p may touch resourceID.
func (p *Principal) Allows(resourceID string) bool {
	return p.All || p.Resources[resourceID]
}

// MaxTokenFileBytes bounds a token file: 16 MiB, some 80,000 tokens of
// one resource each. A larger file (or /dev/zero given by mistake) is
// refused before it is read whole.
const MaxTokenFileBytes = 16 << 20

// LoadTokens reads and parses a token file (see TokenFile). It returns
// ErrInvalidTokens when the file cannot be read, is larger than
// MaxTokenFileBytes, or does not parse.
func LoadTokens(path string) (*Tokens, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidTokens, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxTokenFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidTokens, err)
	}
	if len(b) > MaxTokenFileBytes {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrInvalidTokens, path, MaxTokenFileBytes)
	}
	return ParseTokens(b)
}

// tokenDecodeDetail words a token file's decoding error on its bytes b:
// where the JSON breaks (encoding/json's own words gave no place:
// "unexpected EOF"), and a character past ASCII there by its code point
// ('\u00a0' (U+00A0), jsonkey.NamedSyntax; encoding/json said 'Â').
func tokenDecodeDetail(b []byte, err error) string {
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF):
		return `the file is empty (want {"tokens": [...]})`
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON ends before its value does (a closing quote, ] or } is missing)"
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d: %v", jsonkey.SyntaxOffset(se), jsonkey.NamedSyntax(b, se))
	}
	return err.Error()
}

// ParseTokens parses the JSON of a token file. It returns ErrInvalidTokens
// naming the field at fault by its path and, inside an entry, the token
// by its name (or, without one, its resources; never its secret):
// `unknown field "tokens[1].tenant" (a token has name, token, resources
// and erase); tokens[1] is the token named "bob"`. A member given twice in
// one object or named in another case than its field is at fault too, and
// a secret or a name an earlier token has ("tokens[1].name: "bob" is given
// twice (tokens[0] is named so too): …") or one that reads as it
// ("tokens[1].name: "Bob" reads as "bob", the name of tokens[0] (it has
// U+0042 where that has U+0062): …"), a resource listed twice, and
// anything but whitespace after the object ("unexpected data after the
// JSON value at byte N"), and a file that begins with a byte-order mark
// or is not UTF-8 (the error says which, and at which byte).
func ParseTokens(b []byte) (*Tokens, error) {
	if err := jsonkey.Text(b); err != nil {
		// A secret saved as Latin-1 was read with U+FFFD in it, a token
		// no client sends (two of them could become one).
		return nil, fmt.Errorf("%w: %v", ErrInvalidTokens, err)
	}
	var f TokenFile
	if path := DuplicateKey(b); path != "" {
		return nil, fmt.Errorf("%w: %s", ErrInvalidTokens, withTokenEntry(b, path, duplicateDetail(path)))
	}
	src := bytes.NewReader(b)
	dec := json.NewDecoder(src)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrInvalidTokens, tokenFault(b, err))
	}
	if err := jsonkey.End(dec, src); err != nil {
		// Nothing after the object was read: a stray "}", or a second
		// token list whose tokens would have been left out.
		return nil, fmt.Errorf("%w: %v", ErrInvalidTokens, err)
	}
	if m, name := unboundedWalk().caseVariant(b, reflect.TypeOf(&f), ""); m != "" {
		return nil, fmt.Errorf("%w: %s", ErrInvalidTokens, withTokenEntry(b, m, caseVariantDetail(m, name)))
	}
	if len(f.Tokens) == 0 {
		return nil, fmt.Errorf("%w: tokens: at least one token is needed", ErrInvalidTokens)
	}
	if err := checkNamesNotSecrets(f.Tokens); err != nil {
		return nil, err // before any refusal that quotes a name
	}
	t := &Tokens{byHash: map[[32]byte]*Principal{}}
	names := map[string]nameUse{}
	for i, tok := range f.Tokens {
		p, err := principal(i, tok)
		if err == nil {
			err = t.add(i, tok, p, names)
		}
		if errors.As(err, new(nameFault)) {
			return nil, err // it quotes the name already
		}
		if err != nil {
			return nil, fmt.Errorf("%w; %s", err, tokenEntry(b, fmt.Sprintf("tokens[%d]", i)))
		}
	}
	if err := checkNamesDistinct(f.Tokens); err != nil {
		return nil, err
	}
	return t, nil
}

// nameUse is the token that has a name: its index, and whether the file
// gives the name (false: the "token-<index>" of a token without one).
type nameUse struct {
	index int
	given bool
}

// add records p, the principal of tok, the i-th token of the file. It
// refuses a secret an earlier token has, and a name one has (names holds
// the names seen so far): the access log and the metrics name a request
// by its token's name alone, so two tokens of one name could not be told
// apart there.
func (t *Tokens) add(i int, tok Token, p *Principal, names map[string]nameUse) error {
	h := sha256.Sum256([]byte(tok.Token))
	if _, dup := t.byHash[h]; dup {
		return fmt.Errorf("%w: tokens[%d].token: the same secret is given twice (as an earlier token's)", ErrInvalidTokens, i)
	}
	if u, dup := names[p.Name]; dup {
		err := fmt.Errorf("%w: tokens[%d].name: %s", ErrInvalidTokens, i, dupNameDetail(p.Name, tok.Name != "", u))
		if tok.Name != "" {
			return nameFault{err}
		}
		return err // the entry is then named by its resources
	}
	names[p.Name] = nameUse{index: i, given: tok.Name != ""}
	t.byHash[h] = p
	return nil
}

// dupNameDetail says why name, given in the file or not, is refused: an
// earlier token u has it.
func dupNameDetail(name string, given bool, u nameUse) string {
	const why = "the access log names a request by its token's name alone, so give each token a name of its own"
	switch {
	case !given:
		return fmt.Sprintf("none is given, so the token is named %q (token-<index>), which tokens[%d] is named too: %s", name, u.index, why)
	case !u.given:
		return fmt.Sprintf("%q is the name tokens[%d] has without one given (token-<index>): %s", name, u.index, why)
	}
	return fmt.Sprintf("%q is given twice (tokens[%d] is named so too): %s", name, u.index, why)
}

func principal(i int, tok Token) (*Principal, error) {
	if len(tok.Token) < 8 || strings.TrimSpace(tok.Token) != tok.Token {
		return nil, fmt.Errorf("%w: tokens[%d].token: must be at least 8 characters without surrounding spaces", ErrInvalidTokens, i)
	}
	if hasControl(tok.Token) {
		return nil, fmt.Errorf("%w: tokens[%d].token: must hold no control character (U+0000-U+001F or U+007F-U+009F, such as a NUL, a tab or an escape)", ErrInvalidTokens, i)
	}
	if strings.Contains(tok.Token, " ") {
		// "Authorization: Bearer s3cret one" is no bearer token (RFC 6750:
		// a token68 has no space); a client or proxy may split it there.
		return nil, fmt.Errorf("%w: tokens[%d].token: must hold no space (a bearer token is one word)", ErrInvalidTokens, i)
	}
	if len(tok.Resources) == 0 {
		return nil, fmt.Errorf("%w: tokens[%d].resources: list the resource ids, or [\"*\"] for all", ErrInvalidTokens, i)
	}
	if err := checkTokenName(i, tok); err != nil {
		return nil, err
	}
	p := &Principal{Name: tok.Name, Erase: tok.Erase, Resources: map[string]bool{}}
	if p.Name == "" {
		p.Name = fmt.Sprintf("token-%d", i)
	}
	for j, r := range tok.Resources {
		switch {
		case r == AllResources && len(tok.Resources) > 1:
			// ["alice", "*"] granted every resource: which was meant?
			return nil, fmt.Errorf("%w: tokens[%d].resources[%d]: \"*\" (every resource) must be the list's only entry: give [\"*\"] or the resource ids", ErrInvalidTokens, i, j)
		case r == AllResources:
			p.All = true
		case p.Resources[r]:
			return nil, fmt.Errorf("%w: tokens[%d].resources[%d]: %q is given twice in the list: give each resource once", ErrInvalidTokens, i, j, r)
		case !engine.ValidID(r):
			// The rule and what broke, as the API's ids (badID): it said
			// "not a valid resource id".
			return nil, fmt.Errorf(`%w: tokens[%d].resources[%d]: a resource id %s (or "*" alone, for every resource); got %s`, ErrInvalidTokens, i, j, engine.IDRule, engine.IDFault(r))
		case !engine.ValidNewID(r):
			// Every write of such a token would be refused (the id rule's
			// 400), and a browser cannot name the resource in a path.
			return nil, fmt.Errorf("%w: tokens[%d].resources[%d]: %s", ErrInvalidTokens, i, j, dotResourceDetail(r))
		default:
			p.Resources[r] = true
		}
	}
	if p.All {
		p.Resources = nil
	}
	return p, nil
}

// dotResourceDetail says why a token may not be bound to resource r, "."
// or "..", and how to reach what a store written before holds under it.
func dotResourceDetail(r string) string {
	why := `"." or ".." (URLs read them as dot segments)`
	if strings.HasPrefix(r, engine.TombstonePrefix) {
		why = `an id beginning with "` + engine.TombstonePrefix + `" (reserved for erased owners)`
	}
	return fmt.Sprintf(`%q cannot be a token's resource: nothing new may be stored under %s, `+
		`so its every write would be refused; read and erase what a data directory written before holds under it `+
		`with an operator token (["*"]) or the mnemo commands`, r, why)
}

// hasControl reports whether s holds a C0 control (tab included), DEL or
// a C1 control. A JSON string holds one only escaped ("\u0000"), so a
// secret with one is a generator's or an editor's mistake: net/http
// refuses a header value with a C0 control but tab, and no one types one
// into the sign-in page, so such a token authenticated nothing.
func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			return true
		}
	}
	return false
}

// Authenticate returns the principal of a request's bearer token, or false.
// The lookup is by SHA-256 of the token, compared in constant time.
func (t *Tokens) Authenticate(r *http.Request) (*Principal, bool) {
	h := r.Header.Get("Authorization")
	const prefix = "Bearer "
	if len(h) <= len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return nil, false
	}
	return t.Lookup(strings.TrimSpace(h[len(prefix):]))
}

// Lookup returns the principal of a token secret, or false.
func (t *Tokens) Lookup(secret string) (*Principal, bool) {
	sum := sha256.Sum256([]byte(secret))
	for h, p := range t.byHash {
		if subtle.ConstantTimeCompare(h[:], sum[:]) == 1 {
			return p, true
		}
	}
	return nil, false
}
