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
		r := relativeDate(tt.text, said, nil)
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
	if from, _ := relativeDate("last weekend", sunday, nil).times(); !from.Equal(day(2023, 5, 6)) {
		t.Errorf("last weekend said on Sunday 14 May: from %v, want 6 May", from)
	}
	if from, _ := relativeDate("last Sunday", sunday, nil).times(); !from.Equal(day(2023, 5, 7)) {
		t.Errorf("last Sunday said on Sunday 14 May: %v, want 7 May", from)
	}
	// Outside 1700–2200: none.
	if r := relativeDate("yesterday", time.Unix(0, 0).AddDate(-300, 0, 0), nil); r.ok() {
		t.Errorf("yesterday said in 1670: got a referent")
	}
}

// TestRelativeDateInZone: a turn's relative date is resolved on the local
// date it is said in the resource's zone, and its Referent holds the
// instants of that zone's midnights. 23:30 on Monday 8 May in Los Angeles
// is 06:30 UTC on Tuesday 9 May; 08:00 on 9 May in Tokyo is 23:00 UTC on
// the 8th.
func TestRelativeDateInZone(t *testing.T) {
	la, err1 := time.LoadLocation("America/Los_Angeles")
	tokyo, err2 := time.LoadLocation("Asia/Tokyo")
	if err1 != nil || err2 != nil {
		t.Skipf("no tzdata: %v %v", err1, err2)
	}
	day := func(y int, m time.Month, d int, loc *time.Location) time.Time {
		return time.Date(y, m, d, 0, 0, 0, 0, loc)
	}
	for _, tt := range []struct {
		text     string
		said     time.Time
		loc      *time.Location
		from, to time.Time
	}{
		{"yesterday", time.Date(2023, 5, 8, 23, 30, 0, 0, la), la, day(2023, 5, 7, la), day(2023, 5, 8, la)},
		{"yesterday", time.Date(2023, 5, 8, 23, 30, 0, 0, la), nil, day(2023, 5, 8, time.UTC), day(2023, 5, 9, time.UTC)},
		{"last Monday", time.Date(2023, 5, 8, 23, 30, 0, 0, la), la, day(2023, 5, 1, la), day(2023, 5, 2, la)},
		{"last week", time.Date(2023, 5, 8, 23, 30, 0, 0, la), la, day(2023, 5, 1, la), day(2023, 5, 8, la)},
		{"last month", time.Date(2023, 5, 31, 23, 30, 0, 0, la), la, day(2023, 4, 1, la), day(2023, 5, 1, la)},
		{"yesterday", time.Date(2023, 5, 9, 8, 0, 0, 0, tokyo), tokyo, day(2023, 5, 8, tokyo), day(2023, 5, 9, tokyo)},
		// The said time's own location does not matter, the zone does.
		{"yesterday", time.Date(2023, 5, 9, 8, 0, 0, 0, tokyo).UTC(), tokyo, day(2023, 5, 8, tokyo), day(2023, 5, 9, tokyo)},
		// Across the change to summer time (12 March 2023 there): whole local days.
		{"two days ago", time.Date(2023, 3, 13, 12, 0, 0, 0, la), la, day(2023, 3, 11, la), day(2023, 3, 12, la)},
	} {
		r := RelativeDate(tt.text, tt.said, tt.loc)
		if !r.From.Equal(tt.from) || !r.To.Equal(tt.to) {
			t.Errorf("%q said at %v in %v: %v–%v, want %v–%v", tt.text, tt.said, tt.loc, r.From, r.To, tt.from, tt.to)
		}
		// The period matches the query's date of that local day, read in the zone.
		p := DatePeriod{From: tt.from, To: tt.from.AddDate(0, 0, 1), Zone: tt.loc}
		if got := p.TF(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), Referent{r.From.UTC(), r.To.UTC()}); got != 1 {
			t.Errorf("%q said at %v in %v: TF of its first day %d, want 1", tt.text, tt.said, tt.loc, got)
		}
	}
}

// TestDayRangeOverlaps: a referent carries a query period it shares a day
// with, and a month of any year one of its days falls in.
func TestDayRangeOverlaps(t *testing.T) {
	said := time.Date(2023, time.June, 2, 9, 0, 0, 0, time.UTC) // Friday
	lastWeek := relativeDate("last week", said, nil)            // 22–28 May
	for _, tt := range []struct {
		q    string
		want bool
	}{
		{"on May 22, 2023", true}, {"on 28 May 2023", true}, {"on May 29, 2023", false}, {"on 21 May, 2023", false},
		{"in May 2023", true}, {"in June 2023", false}, {"in May 2022", false}, {"in May", true}, {"in June", false},
	} {
		ps := queryDates(tt.q, nil)
		if len(ps) != 1 {
			t.Fatalf("%q: %d periods", tt.q, len(ps))
		}
		if got := lastWeek.overlaps(ps[0]); got != tt.want {
			t.Errorf("last week said on 2 June 2023, %q: %v, want %v", tt.q, got, tt.want)
		}
	}
	if (dayRange{}).overlaps(queryDates("in May", nil)[0]) {
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
			relativeDate(text, said, nil)
		}
	})
	b.Run("answerBits", func(b *testing.B) {
		for b.Loop() {
			answerBits(text)
		}
	})
}
