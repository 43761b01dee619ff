package store_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
)

func TestInChunks(t *testing.T) {
	for _, n := range []int{0, 1, store.ChunkSize - 1, store.ChunkSize, store.ChunkSize + 1, 3*store.ChunkSize + 7} {
		items := make([]int, n)
		for i := range items {
			items[i] = i
		}
		var got []int
		calls := 0
		err := store.InChunks(items, func(in string, args []any) error {
			calls++
			if len(args) == 0 || len(args) > store.ChunkSize {
				t.Fatalf("n=%d: chunk of %d", n, len(args))
			}
			if in != store.Placeholders(len(args)) {
				t.Fatalf("n=%d: placeholders %q for %d args", n, in, len(args))
			}
			for _, a := range args {
				got = append(got, a.(int))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := (n + store.ChunkSize - 1) / store.ChunkSize; calls != want {
			t.Errorf("n=%d: %d calls, want %d", n, calls, want)
		}
		if n > 0 && !reflect.DeepEqual(got, items) {
			t.Errorf("n=%d: items out of order or lost", n)
		}
	}
	stop := errors.New("stop")
	calls := 0
	err := store.InChunks(make([]string, 2*store.ChunkSize), func(string, []any) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("error: got %v after %d calls, want stop after 1", err, calls)
	}
	if p := store.Placeholders(3); p != "(?,?,?)" {
		t.Errorf("Placeholders(3) = %q", p)
	}
}
