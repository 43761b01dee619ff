package jsonkey_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

func TestMembers(t *testing.T) {
	for _, c := range []struct {
		in, want string
	}{
		{`{}`, ``},
		{` { "a" : 1 , "b":"x,y}" } `, `a=1 b="x,y}"`},
		{`{"a":{"b":[1,{"c":2}],"d":"e"},"f":[]}`, `a={"b":[1,{"c":2}],"d":"e"} f=[]`},
		{`{"\u0052ole":"user","k\"q":null}`, `Role="user" k"q=null`},
		{`{"a":"\"}","b":true}`, `a="\"}" b=true`},
		{`{"é":1}`, `é=1`},
		{`[{"a":1}]`, ``}, // not an object
		{`"a"`, ``},
	} {
		var got []string
		for k, v := range jsonkey.Members([]byte(c.in)) {
			got = append(got, fmt.Sprintf("%s=%s", k, v))
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("Members(%s) = %s, want %s", c.in, g, c.want)
		}
	}
	n := 0
	for range jsonkey.Members([]byte(`{"a":1,"b":2,"c":3}`)) {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("break after 2: %d members seen", n)
	}
}

// FuzzMembers: for any valid JSON object, Members yields the keys and
// values encoding/json reads, in order.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":[{"c":"}"}],"\u0041":null}`, `{"k\"":"v\\","é":{"x":[]}}`, `[1]`,
		// An OpenAI Responses item as a JSONL line (the importer reads its
		// "type" with Members), and one with "type" given twice, escaped.
		`{"thread":"t","type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"{\"type\":1}"}]}`,
		`{"type":"message","\u0074ype":null}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		data := []byte(s)
		if !json.Valid(data) {
			return
		}
		var want []string
		dec := json.NewDecoder(bytes.NewReader(data))
		if tok, _ := dec.Token(); tok == json.Delim('{') { // else none
			for dec.More() {
				k, _ := dec.Token()
				var v json.RawMessage
				if err := dec.Decode(&v); err != nil {
					t.Fatal(err)
				}
				want = append(want, fmt.Sprintf("%s=%s", k, v))
			}
		}
		var got []string
		for k, v := range jsonkey.Members(data) {
			got = append(got, fmt.Sprintf("%s=%s", k, v))
		}
		if g, w := strings.Join(got, "\x00"), strings.Join(want, "\x00"); g != w {
			t.Fatalf("Members(%q) = %q, want %q", s, got, want)
		}
	})
}
