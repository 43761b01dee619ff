package recall_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

var filterEpoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// filterDocs is a fixed population with every field shape: present and
// absent metadata keys, mixed types under one key, nested objects.
func filterDocs() []recall.Doc {
	roles := []string{"user", "assistant", "tool"}
	var docs []recall.Doc
	for i := 0; i < 60; i++ {
		md := map[string]any{}
		switch i % 5 {
		case 0:
			md["topic"] = []string{"billing", "shipping", "refund"}[i%3]
		case 1:
			md["topic"] = float64(i % 4)
		case 2:
			md["priority"] = float64(i % 7)
			md["topic"] = "billing"
		case 3:
			md["flag"] = i%2 == 0
			md["nested"] = map[string]any{"k": fmt.Sprintf("v%d", i%3)}
		case 4:
			md["topic"] = nil
		}
		docs = append(docs, recall.Doc{
			ID: fmt.Sprintf("m%02d", i), ThreadID: fmt.Sprintf("t%d", i%4), ResourceID: "r",
			Seq: int64(i/4 + 1), Role: roles[i%3], Metadata: md,
			CreatedAt: filterEpoch.Add(time.Duration(i) * time.Hour),
		})
	}
	return docs
}

// oracle evaluates a filter written as Go values directly, independently of
// the parser: it is the brute-force reference.
type oracle func(d *recall.Doc) bool

func field(d *recall.Doc, name string) (any, bool) {
	switch name {
	case "role":
		return d.Role, true
	case "threadId":
		return d.ThreadID, true
	case "seq":
		return float64(d.Seq), true
	case "createdAt":
		return float64(d.CreatedAt.UnixMilli()), true
	case "metadata.nested.k":
		n, ok := d.Metadata["nested"].(map[string]any)
		if !ok {
			return nil, false
		}
		v, ok := n["k"]
		return v, ok
	}
	v, ok := d.Metadata[name[len("metadata."):]]
	if _, isMap := v.(map[string]any); isMap {
		return nil, false
	}
	return v, ok
}

func oracleCmp(name, op string, want any) oracle {
	return func(d *recall.Doc) bool {
		got, ok := field(d, name)
		switch op {
		case "$eq":
			return ok && got == want
		case "$ne":
			return !ok || got != want
		case "$in", "$nin":
			in := false
			if ok {
				for _, w := range want.([]any) {
					if got == w {
						in = true
					}
				}
			}
			if op == "$in" {
				return in
			}
			return !in
		}
		if !ok {
			return false
		}
		switch g := got.(type) {
		case float64:
			w, ok := want.(float64)
			if !ok {
				return false
			}
			return map[string]bool{"$gt": g > w, "$gte": g >= w, "$lt": g < w, "$lte": g <= w}[op]
		case string:
			w, ok := want.(string)
			if !ok {
				return false
			}
			return map[string]bool{"$gt": g > w, "$gte": g >= w, "$lt": g < w, "$lte": g <= w}[op]
		}
		return false
	}
}

// randomFilter returns a random filter as JSON-ready Go values and its oracle.
func randomFilter(r *rand.Rand, depth int) (map[string]any, oracle) {
	if depth < 2 && r.IntN(3) == 0 {
		switch r.IntN(3) {
		case 0, 1:
			op := []string{"$and", "$or"}[r.IntN(2)]
			var kids []any
			var oks []oracle
			for i := 0; i < 1+r.IntN(3); i++ {
				f, o := randomFilter(r, depth+1)
				kids = append(kids, f)
				oks = append(oks, o)
			}
			return map[string]any{op: kids}, func(d *recall.Doc) bool {
				for _, o := range oks {
					if o(d) != (op == "$and") {
						return op != "$and"
					}
				}
				return op == "$and"
			}
		default:
			f, o := randomFilter(r, depth+1)
			return map[string]any{"$not": f}, func(d *recall.Doc) bool { return !o(d) }
		}
	}
	fields := []string{"role", "threadId", "seq", "createdAt", "metadata.topic", "metadata.priority", "metadata.flag", "metadata.nested.k", "metadata.absent"}
	name := fields[r.IntN(len(fields))]
	val := func() any {
		switch name {
		case "role":
			return []string{"user", "assistant", "tool"}[r.IntN(3)]
		case "threadId":
			return fmt.Sprintf("t%d", r.IntN(5))
		case "seq":
			return float64(r.IntN(17))
		case "createdAt":
			return float64(filterEpoch.Add(time.Duration(r.IntN(60)) * time.Hour).UnixMilli())
		case "metadata.nested.k":
			return fmt.Sprintf("v%d", r.IntN(4))
		}
		return []any{"billing", "shipping", "refund", float64(r.IntN(7)), true, false, nil}[r.IntN(7)]
	}
	ordered := func(v any) bool { _, s := v.(string); _, n := v.(float64); return s || n }
	ops := []string{"$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"}
	op := ops[r.IntN(len(ops))]
	for name == "role" && (op == "$gt" || op == "$gte" || op == "$lt" || op == "$lte") {
		op = ops[r.IntN(len(ops))] // refused: roles have no order
	}
	var want any
	switch op {
	case "$in", "$nin":
		arr := []any{}
		for i := 0; i < r.IntN(4); i++ {
			arr = append(arr, val())
		}
		want = arr
	default:
		want = val()
		for (op == "$gt" || op == "$gte" || op == "$lt" || op == "$lte") && !ordered(want) {
			want = val()
		}
	}
	var cond any = map[string]any{op: want}
	if op == "$eq" && r.IntN(2) == 0 {
		cond = want // implicit $eq
	}
	return map[string]any{name: cond}, oracleCmp(name, op, want)
}

// TestFilterOracle checks every operator and random combinations against
// the brute-force oracle over the same documents, including filters that
// match few or no documents.
func TestFilterOracle(t *testing.T) {
	docs := filterDocs()
	r := rand.New(rand.NewPCG(1, 2))
	few, none, many := 0, 0, 0
	for i := 0; i < 3000; i++ {
		f, o := randomFilter(r, 0)
		raw, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := recall.ParseFilter(raw)
		if err != nil {
			t.Fatalf("ParseFilter(%s): %v", raw, err)
		}
		n := 0
		for j := range docs {
			got, want := pf.Match(&docs[j]), o(&docs[j])
			if got != want {
				t.Fatalf("filter %s on %+v: got %v, want %v", raw, docs[j], got, want)
			}
			if want {
				n++
			}
		}
		switch {
		case n == 0:
			none++
		case n <= 3:
			few++
		default:
			many++
		}
	}
	if few < 50 || none < 50 || many < 50 {
		t.Fatalf("random filters poorly spread: none=%d few=%d many=%d", none, few, many)
	}
}

func TestFilterSemantics(t *testing.T) {
	docs := filterDocs()
	count := func(js string) int {
		t.Helper()
		f, err := recall.ParseFilter([]byte(js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		n := 0
		for i := range docs {
			if f.Match(&docs[i]) {
				n++
			}
		}
		return n
	}
	for _, tc := range []struct {
		js   string
		want int
	}{
		{`{}`, 60},
		{`null`, 60},
		{`{"role":"user"}`, 20},
		{`{"role":{"$ne":"user"}}`, 40},
		{`{"seq":{"$gte":2,"$lt":4}}`, 8},
		{`{"createdAt":{"$lt":"2026-01-02T05:04:05Z"}}`, 2},
		{`{"metadata.absent":{"$ne":1}}`, 60},
		{`{"metadata.absent":{"$nin":[1]}}`, 60},
		{`{"metadata.absent":{"$in":[null]}}`, 0},
		{`{"metadata.topic":null}`, 12},
		{`{"metadata.topic":{"$gt":"a"}}`, 24},
		{`{"metadata.topic":{"$gte":0}}`, 12},
		{`{"metadata.nested.k":"v1"}`, 4},
		{`{"metadata.nested":"v1"}`, 0},
		{`{"$or":[{"role":"tool"},{"seq":1}]}`, 23},
		{`{"$not":{"$and":[{"role":"tool"},{"threadId":"t2"}]}}`, 55},
		{`{"role":"user","threadId":"t0"}`, 5},
	} {
		if got := count(tc.js); got != tc.want {
			t.Errorf("%s matched %d, want %d", tc.js, got, tc.want)
		}
	}
}

func TestFilterInvalid(t *testing.T) {
	for _, tc := range []struct{ js, path, op string }{
		{`[1]`, "", ""},
		{`{"role":`, "", ""},
		{`{"bogus":1}`, "bogus", ""},
		{`{"role":{"$regex":"a"}}`, "role", "$regex"},
		{`{"$xor":[{"role":"user"}]}`, "", "$xor"},
		{`{"$and":[]}`, "$and", "$and"},
		{`{"$or":[1]}`, "$or[0]", "$or"},
		{`{"$not":[{"role":"user"}]}`, "$not", "$not"},
		{`{"seq":"3"}`, "seq", "$eq"},
		{`{"seq":1.5}`, "seq", "$eq"},
		{`{"role":1}`, "role", "$eq"},
		{`{"createdAt":"yesterday"}`, "createdAt", "$eq"},
		{`{"metadata.x":{"$gt":true}}`, "metadata.x", "$gt"},
		{`{"metadata.x":{"$in":"a"}}`, "metadata.x", "$in"},
		{`{"metadata.x":{"$eq":{"a":1}}}`, "metadata.x", "$eq"},
		{`{"metadata.":1}`, "metadata.", ""},
		{`{"role":{}}`, "role", ""},
		{`{"$and":[{"$or":[{"seq":{"$lt":"x"}}]}]}`, "$and[0].$or[0].seq", "$lt"},
		// A repeated key is an error, not "last key wins" (issue 12 item 8).
		{`{"role":"user","role":"tool"}`, "role", ""},
		{`{"seq":{"$gt":1,"$gt":5}}`, "seq.$gt", ""},
		{`{"$or":[{"role":"user"},{"threadId":"a","threadId":"b"}]}`, "$or[1].threadId", ""},
		{`{"":1,"":2}`, "", ""},
		{`{"metadata.x":{"$in":[1,2]},"metadata.x":3}`, "metadata.x", ""},
		// A NUL byte no stored message can hold (Append refuses it); on
		// Postgres it reached the server and failed the search (a 500).
		{`{"role":"us\u0000er"}`, "role", "$eq"},
		{`{"threadId":{"$in":["a","b\u0000"]}}`, "threadId", "$in"},
		{`{"metadata.x":{"$ne":"\u0000"}}`, "metadata.x", "$ne"},
		{`{"metadata.k\u0000":"x"}`, "metadata.k\x00", ""},
		{`{"metadata.a.\u0000":{"$nin":["x"]}}`, "metadata.a.\x00", ""},
		// A role no message is stored with found nothing, silently
		// (readme51 F11); a message's role "robot" is refused.
		{`{"role":"robot"}`, "role", "$eq"},
		{`{"role":{"$ne":"User"}}`, "role", "$ne"},
		{`{"role":{"$in":["user","robot"]}}`, "role", "$in"},
		{`{"$not":{"role":{"$nin":["system"]}}}`, "$not.role", "$nin"},
		// Roles have no order: $gt "robot" took any string (fix52).
		{`{"role":{"$gt":"robot"}}`, "role", "$gt"},
		{`{"role":{"$lte":"user"}}`, "role", "$lte"},
		{`{"$or":[{"seq":1},{"role":{"$gte":"a","$ne":"user"}}]}`, "$or[1].role", "$gte"},
	} {
		t.Run(tc.js, func(t *testing.T) {
			_, err := recall.ParseFilter([]byte(tc.js))
			if !errors.Is(err, recall.ErrInvalidFilter) {
				t.Fatalf("err=%v, want ErrInvalidFilter", err)
			}
			var fe *recall.FilterError
			if !errors.As(err, &fe) {
				t.Fatalf("err %T is not a *FilterError", err)
			}
			if fe.Path != tc.path || fe.Op != tc.op {
				t.Fatalf("path=%q op=%q, want %q %q (%v)", fe.Path, fe.Op, tc.path, tc.op, err)
			}
		})
	}
	deep := `{"role":"user"}`
	for i := 0; i < recall.MaxFilterDepth+2; i++ {
		deep = `{"$not":` + deep + `}`
	}
	if _, err := recall.ParseFilter([]byte(deep)); !errors.Is(err, recall.ErrInvalidFilter) {
		t.Fatalf("deep filter: err=%v", err)
	}
}

// FuzzParseFilter checks that any input parses or fails with a FilterError,
// and that a parsed filter never panics when matched.
func FuzzParseFilter(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/filter/*.json")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	if len(seeds) == 0 {
		f.Fatal("no seeds in testdata/filter")
	}
	docs := filterDocs()
	f.Fuzz(func(t *testing.T, b []byte) {
		pf, err := recall.ParseFilter(b)
		if err != nil {
			var fe *recall.FilterError
			if !errors.As(err, &fe) || !errors.Is(err, recall.ErrInvalidFilter) {
				t.Fatalf("error %v is not a FilterError", err)
			}
			return
		}
		if v := bytes.TrimSpace(b); len(v) > 0 && !json.Valid(v) {
			// {"role":"user"}} was accepted (testdata/filter/trailing_*.json).
			t.Fatalf("%q is not JSON, and was accepted", b)
		}
		for i := range docs {
			pf.Match(&docs[i])
		}
	})
}

// TestFilterTrailingData: a filter is one JSON value and nothing after it
// but whitespace. Before, a stray "}" or "]" after the object passed
// (encoding/json's Decoder.More is false before one) and the filter was
// applied as if it were not there: mnemo search --filter '{"role":"user"}}'.
func TestFilterTrailingData(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"role":"user"}}`, "recall: invalid filter at $: unexpected data after the JSON value at byte 15"},
		{`{"role":"user"}]`, "recall: invalid filter at $: unexpected data after the JSON value at byte 15"},
		{" {\"role\":\"user\"} \n ] ", "recall: invalid filter at $: unexpected data after the JSON value at byte 19"},
		{`{"role":"user"} {"role":"tool"}`, "recall: invalid filter at $: unexpected data after the JSON value at byte 16"},
		{`{} }`, "recall: invalid filter at $: unexpected data after the JSON value at byte 3"},
		{`null ]`, "recall: invalid filter at $: unexpected data after the JSON value at byte 5"},
	} {
		_, err := recall.ParseFilter([]byte(c.in))
		var fe *recall.FilterError
		if !errors.As(err, &fe) || !errors.Is(err, recall.ErrInvalidFilter) || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.in, err, c.want)
		}
	}
	if f, err := recall.ParseFilter([]byte("{\"role\":\"user\"} \r\n\t")); f == nil || err != nil {
		t.Fatalf("trailing whitespace: %v, %v", f, err)
	}
}

// TestFilterRepeatedKey: a key repeated in one object is refused with a
// message that says so; the same key in different objects is fine.
func TestFilterRepeatedKey(t *testing.T) {
	_, err := recall.ParseFilter([]byte(`{"role":"user","role":"tool"}`))
	if !errors.Is(err, recall.ErrInvalidFilter) || !strings.Contains(err.Error(), `key "role" is repeated`) {
		t.Fatalf("err = %v, want a repeated-key FilterError", err)
	}
	for _, ok := range []string{
		`{"$or":[{"role":"user"},{"role":"tool"}]}`,
		`{"seq":{"$gt":1},"metadata.seq":{"$gt":1}}`,
		`{"metadata.a":{"$in":["x","x"]}}`,
	} {
		if _, err := recall.ParseFilter([]byte(ok)); err != nil {
			t.Fatalf("%s: %v", ok, err)
		}
	}
}
