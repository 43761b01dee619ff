package salvage

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/journal"
)

// TestMergeRanges: ranges are sorted and those that touch or overlap are
// joined; a range reaching math.MaxInt64 swallows what follows.
func TestMergeRanges(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in, out []Range
	}{
		{"Empty", nil, nil},
		{"One", []Range{{5, 5}}, []Range{{5, 5}}},
		{"Unsorted", []Range{{10, 12}, {1, 2}}, []Range{{1, 2}, {10, 12}}},
		{"Touching", []Range{{1, 2}, {3, 3}, {4, 9}}, []Range{{1, 9}}},
		{"Overlapping", []Range{{1, 8}, {3, 4}, {6, 12}}, []Range{{1, 12}}},
		{"Gap", []Range{{1, 2}, {4, 5}}, []Range{{1, 2}, {4, 5}}},
		{"ToTheEnd", []Range{{7, math.MaxInt64}, {1, 1}, {100, 200}}, []Range{{1, 1}, {7, math.MaxInt64}}},
		{"Duplicate", []Range{{3, 3}, {3, 3}}, []Range{{3, 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mergeRanges(slices.Clone(tc.in)); !slices.Equal(got, tc.out) {
				t.Fatalf("mergeRanges(%v) = %v, want %v", tc.in, got, tc.out)
			}
		})
	}
}

// vector encodes fs as little-endian float32s.
func vector(fs ...float32) []byte {
	b := make([]byte, 4*len(fs))
	for i, f := range fs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// TestPlausibleVector: a stored vector is dims finite float32s of norm 1
// (within 1%) or all zero.
func TestPlausibleVector(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		dims int64
		want bool
	}{
		{"Unit", vector(0.6, 0.8), 2, true},
		{"NearUnit", vector(0.6, 0.805), 2, true},
		{"Zero", vector(0, 0, 0), 3, true},
		{"Long", vector(1, 1), 2, false},
		{"WrongDims", vector(0.6, 0.8), 3, false},
		{"NoDims", vector(0.6, 0.8), -1, false},
		{"ShortBlob", vector(0.6, 0.8)[:7], 2, false},
		{"NaN", vector(float32(math.NaN()), 1), 2, false},
		{"Inf", vector(float32(math.Inf(1)), 0), 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := plausibleVector(tc.b, tc.dims); got != tc.want {
				t.Fatalf("plausibleVector = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestGarbledRow: what mnemo writes passes; text that is not UTF-8, a
// JSON column that is not JSON, a memctx record that is not JSON, a
// vector of the wrong shape and a message's seq below 1 are garbled;
// bytes outside those columns are not judged.
func TestGarbledRow(t *testing.T) {
	for _, tc := range []struct {
		name  string
		table string
		names []string
		vals  []any
		want  bool
	}{
		{"Message", "messages", []string{"content", "metadata", "tool_calls"}, []any{"hello", `{"a":1}`, nil}, false},
		{"EmptyJSON", "messages", []string{"content", "metadata"}, []any{"hello", ""}, false},
		{"NotUTF8", "messages", []string{"content"}, []any{"hel\xfflo"}, true},
		{"MetadataNotJSON", "messages", []string{"content", "metadata"}, []any{"hello", `{"a":`}, true},
		{"Seq", "messages", []string{"seq", "content"}, []any{int64(6), "hello"}, false},
		{"SeqNegative", "messages", []string{"seq", "content"}, []any{int64(-7), "hello"}, true},
		{"SeqZero", "messages", []string{"seq", "content"}, []any{int64(0), "hello"}, true},
		{"OtherTableSeq", "journal", []string{"seq"}, []any{int64(-1)}, false},
		{"ToolCallsNotJSON", "messages", []string{"tool_calls"}, []any{`[{"id"`}, true},
		{"SourcesNotJSON", "observations", []string{"sources"}, []any{`[`}, true},
		{"MemCtxJSON", "journal", []string{"scope", "output"}, []any{journal.ScopeMemCtx, []byte(`{"runId":"r"}`)}, false},
		{"MemCtxNotJSON", "journal", []string{"scope", "output"}, []any{journal.ScopeMemCtx, []byte(`{"runId":`)}, true},
		{"OtherOutputBytes", "journal", []string{"scope", "output"}, []any{journal.ScopeTool, []byte{0xff, 0x00}}, false},
		{"Vector", "embeddings", []string{"dims", "vector"}, []any{int64(2), vector(0.6, 0.8)}, false},
		{"DerivedVector", "embeddings", []string{"dims", "vector"}, []any{int64(2), []byte{}}, false},
		{"VectorGarbled", "embeddings", []string{"dims", "vector"}, []any{int64(2), vector(3, 4)}, true},
		{"VectorWrongLength", "embeddings", []string{"dims", "vector"}, []any{int64(3), vector(0.6, 0.8)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := garbledRow(tc.table, tc.names, tc.vals); got != tc.want {
				t.Fatalf("garbledRow(%s, %v) = %v, want %v", tc.table, tc.vals, got, tc.want)
			}
		})
	}
}

// TestDigestOnly: a stored digest that differs from the text's only in
// bytes damage overwrote (up to 16 of its 64 digits, hex or not) is the
// digest's damage; one of another text, or cut short, is not.
func TestDigestOnly(t *testing.T) {
	want := msgstore.Digest("user", "the refund was approved", "", "", nil)
	other := msgstore.Digest("user", "the refund was approvee", "", "", nil)
	hit := func(n int, with byte) string {
		b := []byte(want)
		for i := range n {
			b[10+i] = with
		}
		return string(b)
	}
	for _, tc := range []struct {
		name, stored string
		ok           bool
	}{
		{"8 digits to a hex digit", hit(8, '0'), true},
		{"8 bytes not hex", hit(8, 0xff), true},
		{"16 bytes", hit(16, 0xff), true},
		{"17 bytes", hit(17, 0xff), false},
		{"another text's digest", other, false},
		{"cut short", want[:60], false},
		{"empty", "", false},
	} {
		if got := digestOnly(tc.stored, want); got != tc.ok {
			t.Errorf("%s: digestOnly = %v, want %v", tc.name, got, tc.ok)
		}
	}
}
