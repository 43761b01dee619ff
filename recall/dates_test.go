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
		got := queryDates(c.q)
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
		got := queryPeriods(c.q, c.at)
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
