package recall

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestPeriodOrds checks periodOrds against periodTF over every ord, in a
// shard built in memory and in the same shard loaded from its snapshot
// (the per-ord arrays then lie in the mapping): messages created over two
// years, some before 1700 (no Unix-nanosecond time), some saying a
// relative date, some replaced or removed; periods of a month of any
// year, of a day, of a month of a year and relative ones.
func TestPeriodOrds(t *testing.T) {
	lex, _, _ := memShard(t)
	s := newShard("res", nil, false)
	if err := s.reset(); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(14, 9))
	base := time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)
	said := []string{"", "", "yesterday", "last week", "a month ago", "last month", "two days ago"}
	for i := range 2000 {
		d := Doc{ID: fmt.Sprintf("m%05d", i), ThreadID: fmt.Sprintf("t%d", i%9), ResourceID: "res", Seq: int64(i + 1), Role: "user",
			Content:   "we met " + said[rng.IntN(len(said))] + " about the order",
			CreatedAt: base.Add(time.Duration(rng.IntN(2*365*24)) * time.Hour)}
		if i%89 == 0 {
			d.CreatedAt = time.Date(1200+i%3, time.Month(1+i%12), 1+i%28, 0, 0, 0, 0, time.UTC)
		}
		s.putDoc(&d, lex)
	}
	// On the bounds of the periods below.
	for i, at := range []time.Time{time.Date(2022, 3, 14, 0, 0, 0, 0, time.UTC), time.Date(2022, 3, 15, 0, 0, 0, 0, time.UTC),
		time.Date(2022, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(1201, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(1201, 6, 30, 23, 0, 0, 0, time.UTC)} {
		s.putDoc(&Doc{ID: fmt.Sprintf("b%d", i), ThreadID: "tb", ResourceID: "res", Seq: int64(i + 1), Role: "user", Content: "on the bound", CreatedAt: at}, lex)
	}
	for i := range 200 {
		id := fmt.Sprintf("m%05d", rng.IntN(2000))
		if e := s.docs.get(id); e != nil && i%2 == 0 {
			d := e.doc
			d.Content, d.CreatedAt = "replaced last week", base.Add(time.Duration(rng.IntN(2*365*24))*time.Hour)
			s.putDoc(&d, lex)
			continue
		}
		s.removeDoc(context.Background(), id)
	}
	s.loaded = true
	loaded, err := loadSnapshotBytes(t, snapshotBytes(t, s))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2023, 3, 15, 12, 0, 0, 0, time.UTC)
	texts := []string{"in May", "in December", "on March 14, 2022", "in May 2022", "in February 2023",
		"last week", "yesterday", "two months ago", "in June 1201", "last month in March"}
	// A range before 1700 (such times are not kept as Unix nanoseconds).
	old := datePeriod{from: time.Date(1201, 6, 1, 0, 0, 0, 0, time.UTC), to: time.Date(1201, 7, 1, 0, 0, 0, 0, time.UTC)}
	checked := 0
	for _, sh := range []*shard{s, loaded} {
		for _, text := range append(texts, "") {
			periods := queryPeriods(text, at, sh.loc)
			if text == "" {
				periods = []datePeriod{old}
			}
			for _, dp := range periods {
				var want []int32
				for o, e := range sh.post.byOrd {
					if e != nil && sh.post.periodTF(o, dp) > 0 {
						want = append(want, int32(o))
					}
				}
				if got := sh.post.periodOrds(dp, nil); !slices.Equal(got, want) {
					t.Fatalf("%q: periodOrds %d ords, periodTF %d:\n%v\n%v", text, len(got), len(want), got, want)
				}
				if len(want) > 0 {
					checked++
				}
			}
		}
	}
	if checked < 12 {
		t.Fatalf("only %d periods with messages", checked)
	}
}
