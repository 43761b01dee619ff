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
