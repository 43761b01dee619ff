package jsonkey_test

import (
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
