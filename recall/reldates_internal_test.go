package recall

import (
	"testing"
	"time"
)

// TestRelativeDate: each expression resolves to the period it points to,
// said at the given time; expressions that may point to the future or are
// longer than a month resolve to none.
func TestRelativeDate(t *testing.T) {
	// Monday 8 May 2023, 13:56 UTC.
	said := time.Date(2023, time.May, 8, 13, 56, 0, 0, time.UTC)
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		text     string
		from, to time.Time // zero: none
	}{
		{"I went to the support group yesterday", day(2023, 5, 7), day(2023, 5, 8)},
		{"Last night we watched Eternal Sunshine", day(2023, 5, 7), day(2023, 5, 8)},
		{"the day before yesterday", day(2023, 5, 6), day(2023, 5, 7)},
		{"My area was hit by a flood last week.", day(2023, 5, 1), day(2023, 5, 8)},
		{"Last weekend I ran a 5K", day(2023, 5, 6), day(2023, 5, 8)},
		{"this past weekend was fun", day(2023, 5, 6), day(2023, 5, 8)},
		{"We went to a convention last month.", day(2023, 4, 1), day(2023, 5, 1)},
		{"last Friday night", day(2023, 5, 5), day(2023, 5, 6)},
		{"last Monday", day(2023, 5, 1), day(2023, 5, 2)},
		{"I got a puppy two weeks ago!", day(2023, 4, 21), day(2023, 4, 28)},
		{"3 days ago", day(2023, 5, 5), day(2023, 5, 6)},
		{"a couple of days ago", day(2023, 5, 6), day(2023, 5, 7)},
		{"a few days ago", day(2023, 5, 4), day(2023, 5, 7)},
		{"a month ago", day(2023, 4, 1), day(2023, 5, 1)},
		{"two months ago I moved", day(2023, 3, 1), day(2023, 4, 1)},
		{"yesterday, and last month too", day(2023, 5, 7), day(2023, 5, 8)}, // the first
		{"last year", time.Time{}, time.Time{}},                             // longer than a month
		{"a few weeks ago", time.Time{}, time.Time{}},                       // no definite extent
		{"on Saturday we go hiking", time.Time{}, time.Time{}},              // may be the future
		{"this weekend", time.Time{}, time.Time{}},
		{"the last time we met", time.Time{}, time.Time{}},
		{"in the past", time.Time{}, time.Time{}},
		{"nothing here", time.Time{}, time.Time{}},
	}
	for _, tt := range tests {
		r := relativeDate(tt.text, said)
		if tt.from.IsZero() {
			if r.ok() {
				from, to := r.times()
				t.Errorf("%q: got %v–%v, want none", tt.text, from, to)
			}
			continue
		}
		from, to := r.times()
		if !r.ok() || !from.Equal(tt.from) || !to.Equal(tt.to) {
			t.Errorf("%q: got %v–%v (ok %v), want %v–%v", tt.text, from, to, r.ok(), tt.from, tt.to)
		}
	}
	// Said on a Sunday, last weekend is the one before; last Sunday a week ago.
	sunday := time.Date(2023, time.May, 14, 10, 0, 0, 0, time.UTC)
	if from, _ := relativeDate("last weekend", sunday).times(); !from.Equal(day(2023, 5, 6)) {
		t.Errorf("last weekend said on Sunday 14 May: from %v, want 6 May", from)
	}
	if from, _ := relativeDate("last Sunday", sunday).times(); !from.Equal(day(2023, 5, 7)) {
		t.Errorf("last Sunday said on Sunday 14 May: %v, want 7 May", from)
	}
	// Outside 1700–2200: none.
	if r := relativeDate("yesterday", time.Unix(0, 0).AddDate(-300, 0, 0)); r.ok() {
		t.Errorf("yesterday said in 1670: got a referent")
	}
}

// TestDayRangeOverlaps: a referent carries a query period it shares a day
// with, and a month of any year one of its days falls in.
func TestDayRangeOverlaps(t *testing.T) {
	said := time.Date(2023, time.June, 2, 9, 0, 0, 0, time.UTC) // Friday
	lastWeek := relativeDate("last week", said)                 // 22–28 May
	for _, tt := range []struct {
		q    string
		want bool
	}{
		{"on May 22, 2023", true}, {"on 28 May 2023", true}, {"on May 29, 2023", false}, {"on 21 May, 2023", false},
		{"in May 2023", true}, {"in June 2023", false}, {"in May 2022", false}, {"in May", true}, {"in June", false},
	} {
		ps := queryDates(tt.q)
		if len(ps) != 1 {
			t.Fatalf("%q: %d periods", tt.q, len(ps))
		}
		if got := lastWeek.overlaps(ps[0]); got != tt.want {
			t.Errorf("last week said on 2 June 2023, %q: %v, want %v", tt.q, got, tt.want)
		}
	}
	if (dayRange{}).overlaps(queryDates("in May")[0]) {
		t.Error("no referent overlaps a period")
	}
}

// BenchmarkRelativeDate: the word scan a message's indexing adds (a
// LoCoMo-length turn), beside answerBits's.
func BenchmarkRelativeDate(b *testing.B) {
	text := "Hey John! Long time no talk! Guess what - I got a puppy two weeks ago! Her name's Coco and she's adorable. How have you been?"
	said := time.Date(2023, time.August, 11, 0, 10, 0, 0, time.UTC)
	b.Run("relativeDate", func(b *testing.B) {
		for b.Loop() {
			relativeDate(text, said)
		}
	})
	b.Run("answerBits", func(b *testing.B) {
		for b.Loop() {
			answerBits(text)
		}
	})
}
