package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// tokenFault words why a token file b did not decode (err, from a
// decoder refusing unknown fields): where the JSON breaks, or the member
// at fault with its path and, inside an entry, which token it is
// (tokenEntry). encoding/json's own words named neither the entry nor, for
// a wrong type, the file's names: `json: unknown field "tenant"`.
func tokenFault(b []byte, err error) string {
	var se *json.SyntaxError
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &se) {
		return tokenDecodeDetail(b, err)
	}
	f, ferr := unboundedWalk().badField(b, reflect.TypeFor[TokenFile](), "")
	var te *json.UnmarshalTypeError
	if f == "" && errors.As(ferr, &te) {
		// The file as a whole is of another JSON type (an array, a
		// string): it said encoding/json's "cannot unmarshal array into
		// Go value of type server.TokenFile".
		return fmt.Sprintf(`the file must be a JSON object, {"tokens": [...]}, not %s`, jsonValue(te.Value))
	}
	if f == "" {
		return tokenDecodeDetail(b, err)
	}
	detail := faultDetail(f, ferr)
	// An unknown member that is near no field's name is told the members
	// there are. (Matched on the detail's text before, a member named
	// "did you mean" went without them.)
	var ue *unknownFieldError
	if errors.As(ferr, &ue) && ue.near == "" {
		detail += " (" + tokenMembers(f) + ")"
	}
	return withTokenEntry(b, f, detail)
}

// tokenMembers lists the members of the object that holds path: a
// token's, or the file's.
func tokenMembers(path string) string {
	if strings.HasPrefix(path, "tokens[") {
		return "a token has name, token, resources and erase"
	}
	return `the file has tokens: {"tokens": [...]}`
}

// withTokenEntry is detail, about the member at path, followed by which
// token it is when path is inside an entry: `…; tokens[1] is the token
// named "bob"`.
func withTokenEntry(b []byte, path, detail string) string {
	if e := tokenEntry(b, path); e != "" {
		return detail + "; " + e
	}
	return detail
}

// tokenEntry names the token file entry that path ("tokens[1].erase") is
// in: `tokens[1] is the token named "bob"`, or for an entry without a
// (string) name `tokens[1] is the token without a name, for resources
// alice, bob`, and so for a name that holds a secret (secretFault) `tokens[1]
// is the token whose name holds a secret (not quoted), for resources
// alice`; "" when path is in no entry or b has no such entry. It reads
// the entry's name and resources from b loosely, never its secret.
func tokenEntry(b []byte, path string) string {
	rest, ok := strings.CutPrefix(path, "tokens[")
	end := strings.IndexByte(rest, ']')
	if !ok || end < 0 {
		return ""
	}
	i, err := strconv.Atoi(rest[:end])
	var file struct {
		Tokens []map[string]json.RawMessage `json:"tokens"`
	}
	if err != nil || json.Unmarshal(b, &file) != nil || i < 0 || i >= len(file.Tokens) {
		return ""
	}
	var name string
	var resources []string
	named := json.Unmarshal(file.Tokens[i]["name"], &name) == nil && name != ""
	secret := named && secretFault(name, looseSecrets(file.Tokens)) != ""
	if named && !secret {
		return fmt.Sprintf("tokens[%d] is the token named %q", i, name)
	}
	what := "without a name"
	if secret {
		what = "whose name holds a secret (not quoted)"
	}
	if json.Unmarshal(file.Tokens[i]["resources"], &resources) == nil && len(resources) > 0 {
		return fmt.Sprintf("tokens[%d] is the token %s, for resources %s", i, what, strings.Join(resources, ", "))
	}
	return fmt.Sprintf("tokens[%d] is the token %s", i, what)
}

// looseSecrets are the token members of entries that are strings.
func looseSecrets(entries []map[string]json.RawMessage) []string {
	var secrets []string
	for _, e := range entries {
		var s string
		if json.Unmarshal(e["token"], &s) == nil {
			secrets = append(secrets, s)
		}
	}
	return secrets
}
