package recall

import (
	"regexp"
	"slices"
	"strings"

	"github.com/mnemo-go/mnemo/internal/bm25"
)

// bm25Stats are the corpus statistics of one resource: document count,
// total length in analysed tokens and document frequency per term. The
// formula is internal/bm25's (the one observe's search uses too).
//
// bleve's own BM25 estimates the average field length from term-dictionary
// sizes (≈1 token per document in ../shared/DEPENDENCIES.md §3), which
// penalises long turns far harder than textbook BM25. recall therefore takes
// bleve's candidates and re-scores them with these exact statistics; on the
// LoCoMo dev set this is worth several points of recall_any@10 (docs/recall.md).
type bm25Stats struct {
	n        int
	totalLen int64
	// ids numbers the shard's distinct analysed terms; df is indexed by
	// id. Entries keep their terms as ids: a 4-byte compare instead of a
	// string compare in score, and 4 bytes a term instead of a string
	// header (BENCHMARKS.md).
	ids termDict
	df  []int
}

// noTerm is the id of a query term the shard has never seen: no message
// holds it.
const noTerm = ^uint32(0)

// termIDs returns the ids of terms, numbering new ones.
func (s *bm25Stats) termIDs(terms []string) []uint32 {
	out := make([]uint32, len(terms))
	for i, t := range terms {
		id, ok := s.ids.lookup(t)
		if !ok {
			id = uint32(len(s.df))
			s.ids.put(t, id)
			s.df = append(s.df, 0)
		}
		out[i] = id
	}
	return out
}

// lookup returns term's id, or noTerm.
func (s *bm25Stats) lookup(term string) uint32 {
	if id, ok := s.ids.lookup(term); ok {
		return id
	}
	return noTerm
}

func (s *bm25Stats) add(terms []uint32) {
	s.n++
	s.totalLen += int64(len(terms))
	for _, t := range distinct(terms) {
		s.df[t]++
	}
}

func (s *bm25Stats) remove(terms []uint32) {
	s.n--
	s.totalLen -= int64(len(terms))
	for _, t := range distinct(terms) {
		s.df[t]--
	}
}

// idf is the non-negative Robertson–Spärck Jones weight used by Lucene:
// ln(1 + (N − df + 0.5)/(df + 0.5)).
func (s *bm25Stats) idf(term string) float64 {
	var df float64
	if id := s.lookup(term); id != noTerm {
		df = float64(s.df[id])
	}
	return bm25.IDF(float64(s.n), df)
}

// score is the BM25 score of a document with the given analysed terms for
// the distinct query terms qterms (ids, noTerm for unseen ones; with
// precomputed idfs).
func (s *bm25Stats) score(qterms []uint32, idfs []float64, doc []uint32) float64 {
	if s.n == 0 || len(doc) == 0 {
		return 0
	}
	avgdl := float64(s.totalLen) / float64(s.n)
	norm := bm25.Norm(float64(len(doc)), avgdl)
	var sum float64
	for i, q := range qterms {
		if q == noTerm {
			continue
		}
		tf := 0
		for _, t := range doc {
			if t == q {
				tf++
			}
		}
		if tf > 0 {
			sum += bm25.Weight(idfs[i], float64(tf), norm)
		}
	}
	return sum
}

// distinct returns terms without repeats, in first-seen order.
func distinct[T comparable](terms []T) []T {
	seen := make(map[T]struct{}, len(terms))
	out := terms[:0:0]
	for _, t := range terms {
		if _, ok := seen[t]; !ok {
			seen[t] = struct{}{}
			out = append(out, t)
		}
	}
	return out
}

// compoundRE finds compound identifiers in a query: alphanumeric runs
// joined by - _ . / or : ("ZEPHYR-QUOTE", "order_id", "v1.2").
var compoundRE = regexp.MustCompile(`[\p{L}\p{N}]+(?:[-_./:][\p{L}\p{N}]+)+`)

// compound is one compound identifier of the query, folded (Fold), with the
// ids of its analysed parts and the sum of their idfs.
type compound struct {
	text string
	ids  []uint32
	idf  float64
}

// compounds returns the query's compound identifiers. The analyser splits
// "ZEPHYR-QUOTE" into "zephyr" and "quot", so a message holding the exact
// identifier would score no better than one holding both words apart; a
// message that holds the identifier's analysed words and contains it
// verbatim (case-insensitively) gets a bonus of the parts' idfs, as a
// matched phrase would. Requiring the words keeps a longer identifier
// ("INV-18880", "v1.2.3") from counting as a shorter one it merely starts
// with ("INV-1888", "v1.2"), and lets the lexical channel find the
// messages that may have the bonus from its postings (lexicalPostings). An
// identifier with a word no message holds gives no bonus and is dropped;
// so is one with a word that is not a word of the query (lexScorer; the
// analyser splits the identifier as it splits the query, so this only
// happens where the two tokenise differently).
func (ix *Index) compounds(text string, s *shard) []compound {
	var out []compound
	for _, m := range Compounds(text) {
		c := compound{text: m}
		for _, t := range distinct(ix.cfg.Lexical.Terms(m)) {
			c.ids = append(c.ids, s.stats.lookup(t))
			c.idf += s.stats.idf(t)
		}
		if c.idf > 0 && !slices.Contains(c.ids, noTerm) {
			out = append(out, c)
		}
	}
	return out
}

func compoundBonus(cs []compound, e *entry, s *shard) float64 {
	if len(cs) == 0 {
		return 0
	}
	s.soundTerms(e)
	var text string
	var b float64
	for _, c := range cs {
		if !holdsAll(e.terms, c.ids) {
			continue
		}
		if text == "" {
			text = s.soundContent(e).doc.Text()
		}
		if containsFolded(text, c.text) {
			b += c.idf
		}
	}
	return b
}

// holdsAll reports whether terms holds every id of ids.
func holdsAll(terms, ids []uint32) bool {
	for _, id := range ids {
		if !slices.Contains(terms, id) {
			return false
		}
	}
	return true
}

// containsFolded reports whether Fold(s) contains sub (which is folded),
// without folding s when it is ASCII (where folding only lowers):
// compoundBonus runs for every candidate of every query that names an
// identifier.
func containsFolded(s, sub string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return strings.Contains(Fold(s), sub)
		}
	}
	n := len(sub)
	for i := 0; i+n <= len(s); i++ {
		j := 0
		for ; j < n; j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != sub[j] {
				break
			}
		}
		if j == n {
			return true
		}
	}
	return false
}
