package recall

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Relative dates (Tuning.NoDates turns them off with the absolute ones).
// A turn says when something happened relative to when it is said: "I
// went to the support group yesterday", said on 8 May 2023, is about 7
// May; "my old area was hit by a flood last week", said on Friday 7 July,
// about the week of 26 June. A question names the absolute date ("Who did
// Maria have dinner with on May 3, 2023?"), so a message carries, besides
// the date it was created (dates.go), the period its first relative date
// expression points to, resolved against its creation time as TimeML's
// TIMEX3 normalisation resolves a deictic expression against the
// document's creation time (Pustejovsky et al., "TimeML", IWCS-5, 2003;
// TempEval's anchoring to the DCT). A query date is then carried by a
// message created in the period or whose referent overlaps it.
//
// Only expressions that point into the past with a definite extent are
// resolved — "yesterday", "the day before yesterday", "last night", "last
// week", "last weekend", "this past week(end)", "last month", "last
// <weekday>", "N days/weeks/months ago" (N a numeral, "a", "an", "a
// couple of"), "a few days ago" — and none longer than a month: "last
// year" would carry every month a question names without a year, and
// "on Saturday", "this weekend" may point to the future. Days are
// calendar days in the resource's time zone (Config.Location; UTC by
// default), as the query's dates are: "yesterday" said at 23:30 on 8 May
// in Los Angeles (06:30 UTC on 9 May) is 7 May.

// dayRange is a period of whole calendar days of the resource's zone: n
// days from day from (the local date's days since 1970-01-01); n == 0 for
// none.
type dayRange struct {
	from int32
	n    uint16
}

func (r dayRange) ok() bool { return r.n > 0 }

// times returns r's dates as [from, to), midnights in UTC (the local
// dates, not the instants: timesIn gives those).
func (r dayRange) times() (time.Time, time.Time) {
	from := time.Unix(int64(r.from)*86400, 0).UTC()
	return from, from.AddDate(0, 0, int(r.n))
}

// timesIn returns r as [from, to): the instants of the local midnights in
// loc (nil: UTC).
func (r dayRange) timesIn(loc *time.Location) (time.Time, time.Time) {
	from, to := r.times()
	return midnight(from, loc), midnight(to, loc)
}

// midnight returns the start of date d's day (its year, month and day) in
// loc (nil: UTC): its first instant when midnight is skipped (a DST change
// at 00:00).
func midnight(d time.Time, loc *time.Location) time.Time {
	return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, zone(loc))
}

// zone is loc, UTC when nil.
func zone(loc *time.Location) *time.Location {
	if loc == nil {
		return time.UTC
	}
	return loc
}

// civil returns t's wall clock in loc (nil: UTC) as a UTC time: the local
// date and time whose whole days the resolver counts.
func civil(t time.Time, loc *time.Location) time.Time {
	t = t.In(zone(loc))
	y, m, d := t.Date()
	h, mi, sec := t.Clock()
	return time.Date(y, m, d, h, mi, sec, t.Nanosecond(), time.UTC)
}

// dateDay is the local date of t in its own location, as days since
// 1970-01-01 (a period's bounds are midnights in the resource's zone).
func dateDay(t time.Time) int64 {
	y, m, d := t.Date()
	return floorDay(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix())
}

// overlaps reports whether r shares a day with the query period p (for a
// month of any year: whether one of its days falls in that month).
func (r dayRange) overlaps(p datePeriod) bool {
	if r.n == 0 {
		return false
	}
	if p.from.IsZero() {
		from, _ := r.times()
		for i := 0; i < int(r.n); i++ {
			if from.AddDate(0, 0, i).Month() == p.month {
				return true
			}
		}
		return false
	}
	end := r.from + int32(r.n)
	return int64(r.from) < dateDay(p.to) && dateDay(p.from) < int64(end)
}

// floorDay is the day (since 1970-01-01, UTC) of Unix second sec.
func floorDay(sec int64) int64 {
	d := sec / 86400
	if sec%86400 < 0 {
		d--
	}
	return d
}

// maxRefDays bounds a referent: a month (see above).
const maxRefDays = 31

func dayOf(t time.Time) int32 { return int32(floorDay(t.Unix())) }

// relativeDate returns the period the first relative date expression of
// text points to, said at created in zone loc (nil: UTC); none (n == 0)
// when it holds none or created is outside 1700–2200.
func relativeDate(text string, created time.Time, loc *time.Location) dayRange {
	if rs := relativeDates(text, created, loc, 1); len(rs) > 0 {
		return rs[0]
	}
	return dayRange{}
}

// relativeDates returns the periods of the first limit relative date
// expressions of text, said at created in zone loc (nil: UTC), in order,
// repeats dropped; none when created is outside 1700–2200.
func relativeDates(text string, created time.Time, loc *time.Location, limit int) []dayRange {
	if y := created.UTC().Year(); y < 1700 || y > 2200 {
		return nil
	}
	local := civil(created, loc)
	words := lowerWords(text)
	today := dayOf(local)
	var out []dayRange
	for i := range words {
		if r := refAt(words, i, today, local); r.ok() && r.n <= maxRefDays && !slices.Contains(out, r) {
			if out = append(out, r); len(out) == limit {
				break
			}
		}
	}
	return out
}

// refAt resolves the expression whose head is words[i] ("yesterday",
// "last", "past", "ago"), if any, said on day today at created (both the
// local date and time, civil).
func refAt(w []string, i int, today int32, created time.Time) dayRange {
	at := func(j int) string {
		if j < 0 || j >= len(w) {
			return ""
		}
		return w[j]
	}
	monday := today - int32((int(created.Weekday())+6)%7)
	switch w[i] {
	case "yesterday":
		if at(i-1) == "before" && at(i-2) == "day" {
			return dayRange{today - 2, 1}
		}
		return dayRange{today - 1, 1}
	case "last", "past":
		if w[i] == "past" && at(i-1) != "this" {
			return dayRange{}
		}
		return lastPeriod(at(i+1), today, monday, created)
	case "ago":
		return agoPeriod(at(i-1), at(i-2), at(i-3), today, created)
	}
	return dayRange{}
}

var weekdayNames = map[string]time.Weekday{"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday,
	"wednesday": time.Wednesday, "thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday}

// lastPeriod resolves "last <unit>" ("this past <unit>").
func lastPeriod(unit string, today, monday int32, created time.Time) dayRange {
	switch unit {
	case "night":
		return dayRange{today - 1, 1}
	case "week":
		return dayRange{monday - 7, 7}
	case "weekend":
		return dayRange{monday - 2, 2}
	case "month":
		return monthRange(created, -1)
	}
	if wd, ok := weekdayNames[unit]; ok {
		back := (int(created.Weekday()) - int(wd) + 7) % 7
		if back == 0 {
			back = 7
		}
		return dayRange{today - int32(back), 1}
	}
	return dayRange{}
}

// agoPeriod resolves "<count> <unit> ago": count is the word before unit,
// before2 and before3 the two before it ("a couple of", "a few").
func agoPeriod(unit, count, before2 string, today int32, created time.Time) dayRange {
	n := 0
	switch {
	case count == "a" || count == "an" || count == "one":
		n = 1
	case count == "of" && before2 == "couple":
		n = 2
	case count == "few" && before2 == "a":
		if unit == "days" {
			return dayRange{today - 4, 3}
		}
		return dayRange{}
	default:
		n = numeral(count)
	}
	if n <= 0 {
		return dayRange{}
	}
	switch unit {
	case "day", "days":
		return dayRange{today - int32(n), 1}
	case "week", "weeks":
		return dayRange{today - int32(7*n) - 3, 7}
	case "month", "months":
		return monthRange(created, -n)
	}
	return dayRange{}
}

// numeral reads a count written in digits (up to 999) or in words (two
// to twelve).
func numeral(w string) int {
	if n, err := strconv.Atoi(w); err == nil && n < 1000 {
		return n
	}
	for i, s := range []string{"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"} {
		if w == s {
			return i + 2
		}
	}
	return 0
}

// monthRange returns the calendar month delta months from created's.
func monthRange(created time.Time, delta int) dayRange {
	first := time.Date(created.Year(), created.Month()+time.Month(delta), 1, 0, 0, 0, 0, time.UTC)
	next := first.AddDate(0, 1, 0)
	return dayRange{dayOf(first), uint16(dayOf(next) - dayOf(first))}
}

// lowerWords splits text into its lower-cased words (letters and digits).
func lowerWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// Referent is the period a message's relative date points to
// (RelativeDate): the whole days [From, To) of its resource's zone, From
// and To the instants of their local midnights (in that location); the
// zero Referent is none.
type Referent struct {
	// From is the first day's local midnight (inclusive).
	From time.Time
	// To is the local midnight after the last day (exclusive).
	To time.Time
}

// IsZero reports whether r is none.
func (r Referent) IsZero() bool { return r.From.IsZero() }

// RelativeDate returns the period the first relative date expression of
// text (a message's Doc.Text) points to, said at created in the
// resource's time zone loc (nil: UTC; "yesterday" said on 8 May 2023
// there: 7 May there), as the lexical channel stores it with the message;
// the zero Referent when text holds none (the expressions are listed in
// docs/recall.md). Another backend stores it per message and
// matches a query's DatePeriod (of the same zone) against it
// (DatePeriod.TF).
func RelativeDate(text string, created time.Time, loc *time.Location) Referent {
	r := relativeDate(text, created, loc)
	if !r.ok() {
		return Referent{}
	}
	from, to := r.timesIn(loc)
	return Referent{from, to}
}

// Months returns the months r's days fall in (in r.From's location), bit
// m−1 for month m (0 for none): what matches a query's month of any year
// ("in March").
func (r Referent) Months() uint16 {
	var bits uint16
	for d := r.From; d.Before(r.To); d = d.AddDate(0, 0, 1) {
		bits |= 1 << (d.Month() - 1)
	}
	return bits
}

// TF returns how many times a message created at created whose relative
// date points to r carries the period p, as the lexical channel scores it
// (a BM25 term of frequency TF): one for being created in p, one more for
// r sharing a day with p (for a month of any year: a day in that month).
// r's instants are read in p.Zone (a backend that stored them as Unix
// times need not restore their location).
func (p DatePeriod) TF(created time.Time, r Referent) int {
	return dateTF(p.internal(), created, dayRangeOf(r, p.Zone))
}

// dayRangeOf converts r (whole days of zone loc, at most maxRefDays) back.
func dayRangeOf(r Referent, loc *time.Location) dayRange {
	if r.IsZero() || !r.From.Before(r.To) {
		return dayRange{}
	}
	from, to := dateDay(r.From.In(zone(loc))), dateDay(r.To.In(zone(loc)))
	return dayRange{int32(from), uint16(min(int(to-from), maxRefDays))}
}
