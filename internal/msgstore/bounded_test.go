package msgstore_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/mnemo-go/mnemo/internal/msgstore"
)

// TestBoundedReads: the byte-bounded range reads LoadContext's pending turn
// and its previews of left-out turns use, on both backends. MessagesWithin
// reads a seq range up to maxBytes of rows (Size) and fails ErrTooLarge
// past it; MessagesPageUpTo ends a page before the row that would pass
// maxBytes, even its first (MessagesPageWithin keeps a first row whatever
// its size). maxBytes 0 is no bound.
func TestBoundedReads(t *testing.T) { forEachBackend(t, testBoundedReads) }

func testBoundedReads(t *testing.T, b backend) {
	ctx := context.Background()
	s, _, _ := openTools(t, b)
	all, err := s.Messages(ctx, "t1", 1, 8)
	if err != nil || len(all) != 8 {
		t.Fatalf("Messages(t1) = %d, %v", len(all), err)
	}
	size := func(seqs ...int64) int {
		n := 0
		for _, q := range seqs {
			n += all[q-1].Size()
		}
		return n
	}

	t.Run("MessagesWithin", func(t *testing.T) {
		for _, c := range []struct {
			max  int
			want []int64 // nil: ErrTooLarge
		}{
			{size(2, 3, 4), []int64{2, 3, 4}},
			{0, []int64{2, 3, 4}},
			{size(2, 3, 4) - 1, nil},
			{1, nil},
		} {
			ms, err := s.MessagesWithin(ctx, "t1", 2, 4, c.max)
			if c.want == nil {
				if !errors.Is(err, msgstore.ErrTooLarge) || ms != nil {
					t.Errorf("MessagesWithin(2..4, %d bytes) = %v, %v; want ErrTooLarge", c.max, seqs(ms), err)
				}
				continue
			}
			if err != nil || !slices.Equal(seqs(ms), c.want) {
				t.Errorf("MessagesWithin(2..4, %d bytes) = %v, %v; want %v", c.max, seqs(ms), err, c.want)
			}
		}
		if ms, err := s.MessagesWithin(ctx, "t1", 5, 4, 1); err != nil || len(ms) != 0 {
			t.Errorf("MessagesWithin of an empty range = %v, %v; want none", seqs(ms), err)
		}
	})

	t.Run("MessagesPageUpTo", func(t *testing.T) {
		for _, c := range []struct {
			max     int
			want    []int64
			cut     bool
			first   []int64 // MessagesPageWithin's page
			byFirst bool
		}{
			{size(8) - 1, nil, true, []int64{8}, true},
			{size(8), []int64{8}, true, []int64{8}, true},
			{size(8, 7), []int64{8, 7}, true, []int64{8, 7}, true},
			{0, []int64{8, 7, 6, 5}, false, []int64{8, 7, 6, 5}, false},
		} {
			ms, cut, err := s.MessagesPageUpTo(ctx, "t1", 1, 8, 4, true, c.max)
			if err != nil || !slices.Equal(seqs(ms), c.want) || cut != c.cut {
				t.Errorf("MessagesPageUpTo(newest 4, %d bytes) = %v cut %v, %v; want %v cut %v", c.max, seqs(ms), cut, err, c.want, c.cut)
			}
			ms, cut, err = s.MessagesPageWithin(ctx, "t1", 1, 8, 4, true, c.max)
			if err != nil || !slices.Equal(seqs(ms), c.first) || cut != c.byFirst {
				t.Errorf("MessagesPageWithin(newest 4, %d bytes) = %v cut %v, %v; want %v cut %v", c.max, seqs(ms), cut, err, c.first, c.byFirst)
			}
		}
	})
}
