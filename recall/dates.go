package recall

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/internal/bm25"
)

// A question that names a date ("What did Joanna bake in May 2022?", "on
// October 13, 2023", "in March") asks about what was said then. recall
// treats each date the query names as one more query term that every
// message created in that period carries: it is scored like a BM25 term
// (idf over the resource's messages in the period, tf 1), so a date that
// covers half the resource weighs little and a single day weighs like a
// rare word. A message also carries the period its relative date points
// to ("yesterday", "last week": reldates.go). A query's own relative dates
// ("what did we talk about yesterday?", "the museum I mentioned two months
// ago") are resolved the same way against the time the question is asked
// (Query.At; none when it is zero) and then scored exactly like a date
// the query names (queryPeriods). Days and months are those of the
// resource's time zone (Config.Location; UTC by default), on both sides:
// "May 3, 2023" is that day there, a message is created on its local date,
// and "yesterday" is the day before the local date it is said or asked
// on. Where bleve
// enumerates the lexical matches (a resource larger than the in-memory
// bound, see lexicalChannel), a message that matches by its date alone is
// not a candidate: the date then only ranks the messages that share a
// word with the query.

// datePeriod is a period a query names: [from, to), local midnights in
// the resource's zone loc (nil: UTC), or every month m of any year there
// when from is zero.
type datePeriod struct {
	from, to time.Time
	month    time.Month
	loc      *time.Location
}

func (p datePeriod) contains(t time.Time) bool {
	if p.from.IsZero() {
		return t.In(zone(p.loc)).Month() == p.month
	}
	return !t.Before(p.from) && t.Before(p.to)
}

const monthNames = `January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec`

var (
	// "October 13, 2023", "Oct 13 2023", "13 October 2023", "May 2022",
	// and a month alone after a preposition ("in March").
	mdyRE   = regexp.MustCompile(`\b(` + monthNames + `)\.? (\d{1,2})(?:st|nd|rd|th)?,? ((?:19|20)\d\d)\b`)
	dmyRE   = regexp.MustCompile(`\b(\d{1,2})(?:st|nd|rd|th)? (?:of )?(` + monthNames + `)\.?,? ((?:19|20)\d\d)\b`)
	myRE    = regexp.MustCompile(`\b(` + monthNames + `)\.?,? ((?:19|20)\d\d)\b`)
	monthRE = regexp.MustCompile(`(?i:\b(?:in|during|of|since|until|by|early|late|mid))[- ](` + monthNames + `)\b`)
)

func monthOf(name string) time.Month {
	name = strings.ToLower(name)
	for m := time.January; m <= time.December; m++ {
		if strings.HasPrefix(strings.ToLower(m.String()), name[:3]) {
			return m
		}
	}
	return 0
}

// queryDates returns the periods text names in zone loc (nil: UTC), at
// most one per mention (the most specific reading).
func queryDates(text string, loc *time.Location) []datePeriod {
	loc = zone(loc)
	var out []datePeriod
	used := func(span []int, taken [][]int) bool {
		for _, t := range taken {
			if span[0] < t[1] && t[0] < span[1] {
				return true
			}
		}
		return false
	}
	var taken [][]int
	day := func(y, m, d int) {
		if d < 1 || d > 31 {
			return
		}
		from := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
		out = append(out, datePeriod{from: midnight(from, loc), to: midnight(from.AddDate(0, 0, 1), loc), loc: loc})
	}
	for _, at := range mdyRE.FindAllStringSubmatchIndex(text, 4) {
		d, _ := strconv.Atoi(text[at[4]:at[5]])
		y, _ := strconv.Atoi(text[at[6]:at[7]])
		day(y, int(monthOf(text[at[2]:at[3]])), d)
		taken = append(taken, at[:2])
	}
	for _, at := range dmyRE.FindAllStringSubmatchIndex(text, 4) {
		if used(at, taken) {
			continue
		}
		d, _ := strconv.Atoi(text[at[2]:at[3]])
		y, _ := strconv.Atoi(text[at[6]:at[7]])
		day(y, int(monthOf(text[at[4]:at[5]])), d)
		taken = append(taken, at[:2])
	}
	for _, at := range myRE.FindAllStringSubmatchIndex(text, 4) {
		if used(at, taken) {
			continue
		}
		y, _ := strconv.Atoi(text[at[4]:at[5]])
		from := time.Date(y, monthOf(text[at[2]:at[3]]), 1, 0, 0, 0, 0, time.UTC)
		out = append(out, datePeriod{from: midnight(from, loc), to: midnight(from.AddDate(0, 1, 0), loc), loc: loc})
		taken = append(taken, at[:2])
	}
	for _, at := range monthRE.FindAllStringSubmatchIndex(text, 4) {
		if used(at, taken) {
			continue
		}
		out = append(out, datePeriod{month: monthOf(text[at[2]:at[3]]), loc: loc})
	}
	return out
}

// maxQueryDates bounds the dates of one kind a query is read for (as
// queryDates reads at most 4 mentions of each form).
const maxQueryDates = 4

// queryPeriods returns the periods a query asked at at names in zone loc
// (nil: UTC): its absolute dates (queryDates), then the periods its
// relative date expressions point to, resolved against at as a message's
// are against its creation time (reldates.go: whole days of loc, at most a
// month); no relative ones when at is zero. A period both forms name is
// listed once.
func queryPeriods(text string, at time.Time, loc *time.Location) []datePeriod {
	loc = zone(loc)
	out := queryDates(text, loc)
	if at.IsZero() {
		return out
	}
	for _, r := range relativeDates(text, at, loc, maxQueryDates) {
		from, to := r.timesIn(loc)
		p := datePeriod{from: from, to: to, loc: loc}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// dateTerm is a query date scored as a BM25 term.
type dateTerm struct {
	period datePeriod
	idf    float64
	// ords are the ords of the messages carrying the date (periodOrds),
	// ascending, as the shard was when the query was scored; nil when the
	// shard's postings overflowed.
	ords []int32
}

// dateTerms returns the dates of a query asked at at (queryPeriods) with
// their idf over the shard's messages; a date no message falls in is
// dropped.
func dateTerms(text string, at time.Time, s *shard) []dateTerm {
	periods := queryPeriods(text, at, s.loc)
	if len(periods) == 0 || s.stats.n == 0 {
		return nil
	}
	var out []dateTerm
	for _, p := range periods {
		df := 0
		var ords []int32
		if s.post.overflow {
			for _, e := range s.docs.all() {
				if dateTF(p, e.doc.CreatedAt, e.ref) > 0 {
					df++
				}
			}
		} else {
			ords = s.post.periodOrds(p, nil)
			df = len(ords)
		}
		if df > 0 {
			out = append(out, dateTerm{p, bm25.IDF(float64(s.stats.n), float64(df)), ords})
		}
	}
	return out
}

// dateTF is how many times a message created at created whose relative
// date points to ref carries the period p: once for being created in it,
// once for saying something happened in it.
func dateTF(p datePeriod, created time.Time, ref dayRange) int {
	tf := 0
	if ref.overlaps(p) {
		tf = 1
	}
	if p.contains(created) {
		tf++
	}
	return tf
}

// dateScore is the BM25 contribution of the query's dates to a message
// created at created whose relative date points to ref, of doclen
// analysed terms (dateTF for each date).
func (s *bm25Stats) dateScore(dts []dateTerm, created time.Time, ref dayRange, doclen int) float64 {
	if len(dts) == 0 || s.n == 0 {
		return 0
	}
	var sum float64
	for _, d := range dts {
		if tf := dateTF(d.period, created, ref); tf > 0 {
			avgdl := float64(s.totalLen) / float64(s.n)
			sum += bm25.Weight(d.idf, float64(tf), bm25.Norm(float64(doclen), avgdl))
		}
	}
	return sum
}
