package jsonkey_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

func TestRepeated(t *testing.T) {
	for _, c := range []struct {
		in, path, key string
		ok            bool
	}{
		{`{"a":1,"b":2}`, "", "", false},
		{`{"a":1,"a":2}`, "a", "a", true},
		{`{"a":1,"\u0061":2}`, "a", "a", true},
		{`{"a":1,"A":2}`, "", "", false}, // keys are compared byte for byte
		{`{"m":[{"r":"u"},{"r":"u","x":{"k":1,"k":1}}]}`, "m[1].x.k", "k", true},
		{`{"m":[{"r":"u"},{"r":"u","r":"t"}]}`, "m[1].r", "r", true},
		{`[{"a":1},{"a":1}]`, "", "", false}, // one key in each object
		{`{"a":{"b":1},"c":{"b":2}}`, "", "", false},
		{`{"a":"a","b":"a"}`, "", "", false}, // a string value is not a key
		{`{"a":[1,"a",{"a":1}],"b":1}`, "", "", false},
		{`{"a":1,"b":[],"c":{},"b":2}`, "b", "b", true},
		{`{"a":1,"a":`, "", "", false}, // not JSON: the decoder reports it
		{`"a"`, "", "", false},
	} {
		path, key, ok := jsonkey.Repeated([]byte(c.in))
		if path != c.path || key != c.key || ok != c.ok {
			t.Errorf("Repeated(%s) = %q, %q, %v; want %q, %q, %v", c.in, path, key, ok, c.path, c.key, c.ok)
		}
	}
}
