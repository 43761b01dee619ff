package engine

import (
	"regexp"
	"strings"
	"unicode"
)

// A label of a Markdown list or heading that ends in a credential word
// and a colon ("3. **Check credentials**: Look for cobblers who are
// members of …", "**Local secrets:** The staff might share …") is
// followed by a sentence, not a secret: red67 found 20 such lines among
// the 19,535 texts of LoCoMo and LongMemEval, each stored with the rest of
// its line replaced. labelProse tells them from a secret after such a
// label ("**Password**: hunter2 x") by both the label's and the value's
// shape, as secret scanners do: gitleaks' generic-api-key takes a value
// of [\w.=-] only (no blank) and drops one that holds a stop word
// (cmd/generate/config/rules/stopwords.go), and detect-secrets'
// KeywordDetector takes no value with a blank.

// labelLine matches a line's start up to the colon after a credential
// name: blanks, a list marker or a heading's #s (group marker), an
// emphasis opener (group em), a quote, and the label's words (group
// words: the credential name the last of them), each of letters,
// apostrophes and hyphens, then an emphasis closer before the colon.
var labelLine = regexp.MustCompile(`^[ \t]*(?P<marker>(?:[-*+•]|\d{1,3}[.)]|#{1,6})[ \t]+)?(?P<em>\*\*|__|\*|_)?["“]?` +
	`(?P<words>\pL[\pL'’-]*(?:[ \t]\pL[\pL'’-]*){0,7})(?:\*\*|__|\*|_)?[ \t]*:$`)

// minProseWords and minStopWords are the least words and stop words of a
// sentence after a label (proseSentence): "Look for cobblers who are
// members" has 6 and 2; "correct horse battery staple" has 4 and none.
const (
	minProseWords = 6
	minStopWords  = 2
)

// stopWords are English function words: a sentence holds several, a
// passphrase or a token seldom two.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the of to for and or but nor in on at by with from as into about
		is are was were be been being has have had do does did can could will would should may might must
		it its this that these those who whom which what when where why how if than then so not no
		you your yours we our us they their them he his him she her i my me such also only all any each
		there here some more most very just too`) {
		m[w] = true
	}
	return m
}()

// titleSmallWords may stand lowercase in a title-case label ("Keep it a
// Secret", "The Book of Secrets").
var titleSmallWords = map[string]bool{"a": true, "an": true, "the": true, "of": true, "and": true, "or": true,
	"for": true, "to": true, "in": true, "on": true, "at": true, "by": true, "with": true, "it": true, "your": true, "my": true}

// labelProse reports whether the match m (submatch indexes in s) of a
// rule that reads a credential name at m[0] and a colon after it is a
// label followed by a sentence (labelLine, proseSentence): the name and
// the words before it on its line are a list item's or a heading's label,
// in Markdown emphasis, or in title case, whose credential word names a
// topic (topicLabel), and the value up to m[1] is a sentence. A line is one of s's, or one of a JSON-escaped text (after
// \n or \r).
func labelProse(s string, m []int) bool {
	colon := strings.IndexByte(s[m[0]:m[1]], ':')
	if colon < 0 {
		return false
	}
	colon += m[0]
	from := max(0, m[0]-maxLabelBytes)
	start := lineStart(s[from:m[0]])
	if start == 0 && from > 0 {
		return false // no line starts near enough: no label
	}
	line := s[from+start : colon+1]
	sm := labelLine.FindStringSubmatchIndex(line)
	if sm == nil {
		return false
	}
	marker, em := sm[2] >= 0, sm[4] >= 0
	words, value := line[sm[6]:sm[7]], strings.TrimLeft(s[colon+1:m[1]], "*_ \t")
	if marker && line[sm[2]] == '#' && howTo(value) {
		return proseSentence(value) // ## Password: how to choose one …
	}
	if !marker && !em && !titleCase(words) || !topicLabel(words) {
		return false
	}
	return proseSentence(value)
}

// howTo reports whether v, the value after a heading's label, opens with
// how, what or why: the heading asks a question or promises a how-to
// ("## Password: how to choose one that is strong"), whatever its label
// (red70: stored "## Password: [REDACTED]" since red69). The price: a
// passphrase of 6 or more words, 2 of them stop words, that opens so and
// is written as a heading's value is kept; a heading holds a document's
// titles, not its credentials, and "when …", "the …" stay replaced.
func howTo(v string) bool {
	w, _, _ := strings.Cut(v, " ")
	switch strings.ToLower(w) {
	case "how", "what", "why":
		return true
	}
	return false
}

// topicLabel reports whether words, a label's, name a topic, not a
// field: its last word, the credential word, is plural ("Check
// credentials", "Local Secrets") or follows an indefinite article ("Keep
// it a Secret"). A singular credential word with no article ("WiFi
// password", "Passphrase", "API key") is a field, its value a secret
// whatever its shape: a passphrase is a sentence too ("the quick brown fox
// jumps over the lazy dog"). A possessive ("password's") is no plural: it
// is the field's (rev70: "- **password's**: …" was read as a topic).
func topicLabel(words string) bool {
	f := strings.Fields(strings.ToLower(words))
	last := strings.Trim(f[len(f)-1], `'’-`)
	if strings.HasSuffix(last, "'s") || strings.HasSuffix(last, "’s") {
		return false
	}
	if strings.HasSuffix(last, "s") && !strings.HasSuffix(last, "ss") {
		return true // credentials, secrets, passwords, creds; not pass
	}
	return len(f) > 1 && (f[len(f)-2] == "a" || f[len(f)-2] == "an")
}

// labelValue is the offset in s of the value after a label (labelProse)
// of the match m: after its colon, an emphasis closer and blanks; -1
// when m is no such label.
func labelValue(s string, m []int) int {
	if !labelProse(s, m) {
		return -1
	}
	colon := m[0] + strings.IndexByte(s[m[0]:m[1]], ':') + 1
	return m[1] - len(strings.TrimLeft(s[colon:m[1]], "*_ \t"))
}

// maxLabelBytes is the most bytes a label's line holds before its
// credential name (labelLine: up to 7 words before it); lineStart looks
// no further back, so that a long line of assignments costs no more
// per match.
const maxLabelBytes = 160

// lineStart returns the offset in s of its last line's start: after the
// last line feed, or after a line break escaped as text (\n, \r).
func lineStart(s string) int {
	i := strings.LastIndexByte(s, '\n') + 1
	for j := len(s) - 1; j > i; j-- {
		if s[j-1] == '\\' && (s[j] == 'n' || s[j] == 'r') {
			return j + 1
		}
	}
	return i
}

// titleCase reports whether words, a label's, are two or more words in
// title case: the first capitalised, each other capitalised or one of
// titleSmallWords.
func titleCase(words string) bool {
	f := strings.Fields(words)
	if len(f) < 2 {
		return false
	}
	for i, w := range f {
		if upperFirst(w) {
			continue
		}
		if i == 0 || !titleSmallWords[w] {
			return false
		}
	}
	return true
}

// upperFirst reports whether w starts with an upper-case letter.
func upperFirst(w string) bool {
	for _, r := range w {
		return unicode.IsUpper(r)
	}
	return false
}

// proseSentence reports whether v is a sentence of ordinary words: every
// blank-separated run is punctuation alone ("-", "&") or a word
// (proseWord), at least minProseWords words, minStopWords of them stop
// words, and at most one in four in mixed case (iPhone, McDonald). A
// digit, a symbol, a code span (`admin`) or a token's mixed case
// (xKqPzWvLm) in any run makes it no sentence.
func proseSentence(v string) bool {
	words, stops, mixed := 0, 0, 0
	for _, run := range strings.Fields(v) {
		if strings.IndexFunc(run, func(r rune) bool { return !unicode.IsPunct(r) }) < 0 {
			continue
		}
		w := strings.Trim(run, `"'“”‘’()[]*_,.;:!?`)
		shape := proseWord(w)
		if shape == notWord {
			return false
		}
		words++
		if shape == mixedCase {
			mixed++
		}
		if stopWords[strings.ToLower(w)] {
			stops++
		}
	}
	return words >= minProseWords && stops >= minStopWords && 4*mixed <= words
}

// wordShape is the shape proseWord finds.
type wordShape int

const (
	notWord   wordShape = iota // a digit, a symbol, a token's case
	plainCase                  // each part lower, UPPER or Title case
	mixedCase                  // a part in a name's mixed case (iPhone)
)

// proseWord returns the shape of w, a run without its outer punctuation:
// parts of letters joined by an apostrophe, a hyphen, a period or a slash
// (roaster's, lesser-known, e.g, and/or), with the case of its parts
// (partCase: mixedCase when one part is); notWord for an empty run, one
// that starts or ends with a joiner, or one holding anything else.
func proseWord(w string) wordShape {
	if w == "" {
		return notWord
	}
	shape := plainCase
	for part := range strings.FieldsFuncSeq(w, func(r rune) bool { return strings.ContainsRune(`'’-./`, r) }) {
		switch partCase(part) {
		case notWord:
			return notWord
		case mixedCase:
			shape = mixedCase
		}
	}
	if strings.ContainsAny(w[:1], "-./") || strings.ContainsAny(w[len(w)-1:], "-./") {
		return notWord // -x, x/: an option, a path (the quotes were trimmed)
	}
	return shape
}

// partCase returns the case of part, letters only: plainCase for lower,
// Title and UPPER up to maxUpperWord letters (an acronym: NASA, SSIA),
// mixedCase for one or two capitals after its first letter (iPhone,
// YouTube); notWord for any other (xKqPzWvLm, a token) and when a rune
// is no letter.
func partCase(part string) wordShape {
	upper, letters := 0, 0
	for _, r := range part {
		switch {
		case unicode.IsUpper(r):
			upper++
		case !unicode.IsLetter(r):
			return notWord
		}
		letters++
	}
	switch {
	case upper == 0 || upper == 1 && upperFirst(part):
		return plainCase
	case upper == letters:
		if letters > maxUpperWord {
			return notWord
		}
		return plainCase
	case upper <= 2:
		return mixedCase
	}
	return notWord
}

// maxUpperWord is the most letters of a word in upper case that
// proseSentence reads as a word (an acronym, a shout); a longer one is
// taken for a token.
const maxUpperWord = 10
