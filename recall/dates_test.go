package recall

import (
	"testing"
	"time"
)

func TestQueryDates(t *testing.T) {
	day := func(y int, m time.Month, d int) datePeriod {
		from := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		return datePeriod{from: from, to: from.AddDate(0, 0, 1)}
	}
	month := func(y int, m time.Month) datePeriod {
		from := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
		return datePeriod{from: from, to: from.AddDate(0, 1, 0)}
	}
	for _, c := range []struct {
		q    string
		want []datePeriod
	}{
		{"What painting did Melanie show to Caroline on October 13, 2023?", []datePeriod{day(2023, time.October, 13)}},
		{"What did she do on 9 June 2023?", []datePeriod{day(2023, time.June, 9)}},
		{"What filling did Joanna use in the cake she made recently in May 2022?", []datePeriod{month(2022, time.May)}},
		{"Which city did John recommend to Tim in January 2024?", []datePeriod{month(2024, time.January)}},
		{"How many doctor's appointments did I go to in March?", []datePeriod{{month: time.March}}},
		{"May I ask what Caroline researched?", nil},
		{"What did Caroline research?", nil},
	} {
		got := queryDates(c.q, nil)
		if len(got) != len(c.want) {
			t.Errorf("%q: %+v, want %+v", c.q, got, c.want)
			continue
		}
		for i := range got {
			if !got[i].from.Equal(c.want[i].from) || !got[i].to.Equal(c.want[i].to) || got[i].month != c.want[i].month {
				t.Errorf("%q: %+v, want %+v", c.q, got, c.want)
			}
		}
	}
}

// TestQueryDatesInZone: in a resource's zone, a date the query names is
// that local day (its midnights' instants), a month of any year is read
// in the zone, and a relative date is resolved on the local date the
// question is asked.
func TestQueryDatesInZone(t *testing.T) {
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Skipf("no tzdata: %v", err)
	}
	ps := queryPeriods("What did we do on May 7, 2023, in March, and yesterday?", time.Date(2023, 5, 17, 20, 30, 0, 0, la), la)
	if len(ps) != 3 {
		t.Fatalf("%d periods: %+v", len(ps), ps)
	}
	if want := time.Date(2023, 5, 7, 0, 0, 0, 0, la); !ps[0].from.Equal(want) || !ps[0].to.Equal(want.AddDate(0, 0, 1)) {
		t.Errorf("May 7, 2023: %v–%v, want the day from %v", ps[0].from, ps[0].to, want)
	}
	if !ps[0].contains(time.Date(2023, 5, 8, 6, 30, 0, 0, time.UTC)) || ps[0].contains(time.Date(2023, 5, 7, 6, 30, 0, 0, time.UTC)) {
		t.Error("May 7 there holds 06:30 UTC on the 8th, not on the 7th")
	}
	// 23:00 on 31 March there is 06:00 UTC on 1 April.
	if !ps[1].contains(time.Date(2023, 4, 1, 6, 0, 0, 0, time.UTC)) || ps[1].contains(time.Date(2023, 3, 1, 6, 0, 0, 0, time.UTC)) {
		t.Errorf("in March, read in the zone: %+v", ps[1])
	}
	if want := time.Date(2023, 5, 16, 0, 0, 0, 0, la); !ps[2].from.Equal(want) || !ps[2].to.Equal(want.AddDate(0, 0, 1)) {
		t.Errorf("yesterday asked at 20:30 on 17 May there: %v–%v, want 16 May there", ps[2].from, ps[2].to)
	}
}

// TestQueryRelativeDates: a query's relative dates are resolved against
// the time it is asked (Saturday 11 March 2023, 10:00 UTC here), in whole
// UTC days, after its absolute dates; none without a time.
func TestQueryRelativeDates(t *testing.T) {
	at := time.Date(2023, time.March, 11, 10, 0, 0, 0, time.UTC)
	days := func(y int, m time.Month, d, n int) datePeriod {
		from := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		return datePeriod{from: from, to: from.AddDate(0, 0, n)}
	}
	month := func(y int, m time.Month) datePeriod {
		from := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
		return datePeriod{from: from, to: from.AddDate(0, 1, 0)}
	}
	for _, c := range []struct {
		q    string
		at   time.Time
		want []datePeriod
	}{
		{"What did we talk about yesterday?", at, []datePeriod{days(2023, time.March, 10, 1)}},
		{"What did I say the day before yesterday?", at, []datePeriod{days(2023, time.March, 9, 1)}},
		{"What did I buy last week?", at, []datePeriod{days(2023, time.February, 27, 7)}},
		{"Where did I go last weekend?", at, []datePeriod{days(2023, time.March, 4, 2)}},
		{"the restaurant I mentioned two days ago", at, []datePeriod{days(2023, time.March, 9, 1)}},
		{"What did I cook last Friday?", at, []datePeriod{days(2023, time.March, 10, 1)}},
		{"How much did I spend last month?", at, []datePeriod{month(2023, time.February)}},
		{"I mentioned visiting a museum two months ago. Did I visit with a friend or not?", at, []datePeriod{month(2023, time.January)}},
		{"What did I do in May 2022 and yesterday?", at, []datePeriod{month(2022, time.May), days(2023, time.March, 10, 1)}},
		{"yesterday, and yesterday again, and last night", at, []datePeriod{days(2023, time.March, 10, 1)}},
		// Whole UTC days: 01:00 at UTC+5 is 20:00 UTC the day before.
		{"What did we talk about yesterday?", time.Date(2023, time.March, 11, 1, 0, 0, 0, time.FixedZone("", 5*3600)), []datePeriod{days(2023, time.March, 9, 1)}},
		{"What did we talk about yesterday?", time.Time{}, nil},
		{"What did I read last year?", at, nil},
		{"What have I been doing recently, a few weeks ago?", at, nil},
		{"What am I doing this weekend?", at, nil},
		{"How many days ago did I buy the plant?", at, nil},
	} {
		got := queryPeriods(c.q, c.at, nil)
		if len(got) != len(c.want) {
			t.Errorf("%q at %v: %+v, want %+v", c.q, c.at, got, c.want)
			continue
		}
		for i := range got {
			if !got[i].from.Equal(c.want[i].from) || !got[i].to.Equal(c.want[i].to) || got[i].month != c.want[i].month {
				t.Errorf("%q at %v: %+v, want %+v", c.q, c.at, got, c.want)
			}
		}
	}
}
