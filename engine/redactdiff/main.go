//go:build redactdiff

// Command redactdiff compares two revisions of engine.DefaultRedactor: it
// finds the words one revision redacts and the other keeps (a leak). It
// is built only with the redactdiff tag; docs/secrets.md ("Checking a
// change to the rules") says how to run it, and run.sh does it all. The
// mutations are red58's (inserted blanks, breaks, quotes, keys, escapes,
// deleted, duplicated and case-swapped runs, spliced literals), seeded.
//
//	redactdiff gen N DIR...     string literals (4+ bytes) of DIR/*_test.go, then N mutations of each, as JSON lines
//	redactdiff redact           each JSON line of stdin, redacted by this tree's DefaultRedactor, as a JSON line
//	redactdiff compare IN OLD NEW   the inputs whose words OLD redacted and NEW keeps
//
// A leak is a word of 4+ letters, digits or '_' that the input holds more
// often than OLD's output, and NEW's output holds more often than OLD's.
// compare marks a leak whose every word comes after a mark and a closing
// quote (…[REDACTED]" rest) "quoted": a value that ends at its string's
// quote keeps the words after it by design (red57).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"github.com/mnemo-go/mnemo/engine"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "gen":
		if len(os.Args) < 4 {
			usage()
		}
		n, err := strconv.Atoi(os.Args[2])
		if err != nil {
			usage()
		}
		gen(n, os.Args[3:])
	case "redact":
		redact()
	case "compare":
		if len(os.Args) != 5 {
			usage()
		}
		compare(os.Args[2], os.Args[3], os.Args[4])
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: redactdiff gen N DIR... | redact | compare IN OLD NEW")
	os.Exit(2)
}

// redact writes each JSON-encoded line of stdin redacted, JSON-encoded.
func redact() {
	r := engine.DefaultRedactor()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for in.Scan() {
		var s string
		if err := json.Unmarshal(in.Bytes(), &s); err != nil {
			fail(err)
		}
		if err := enc.Encode(r.Redact(s)); err != nil {
			fail(err)
		}
	}
	if err := in.Err(); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "redactdiff:", err)
	os.Exit(1)
}

// gen writes the string literals of dirs' test files, sorted, then n
// mutations of each (seeded: the same literals give the same inputs).
func gen(n int, dirs []string) {
	seen := map[string]bool{}
	var lits []string
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		if err != nil {
			fail(err)
		}
		for _, f := range files {
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
			if err != nil {
				fail(err)
			}
			ast.Inspect(af, func(nd ast.Node) bool {
				if bl, ok := nd.(*ast.BasicLit); ok && bl.Kind == token.STRING {
					if s, err := strconv.Unquote(bl.Value); err == nil && len(s) >= 4 && !seen[s] {
						seen[s] = true
						lits = append(lits, s)
					}
				}
				return true
			})
		}
	}
	sort.Strings(lits)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	rng := rand.New(rand.NewSource(58))
	for _, l := range lits {
		enc.Encode(l)
	}
	for _, l := range lits {
		for k := 0; k < n; k++ {
			m := l
			for j := 0; j <= rng.Intn(3); j++ {
				m = mutate(rng, m, lits)
			}
			enc.Encode(m)
		}
	}
}

var pieces = []string{" ", "\n", "\t", "\"", "'", ":", "=", "#", "-", "|", ">", `\n`, `\"`, "{", "}", "[", "]", ",", "&", "?", "%", "$", "  ", "\n  ", "\n    ", `\n  `, "- ", ": ", "=", "value: ", "name: ", "password: ", "token=", "\r\n", `\r\n`, "\\", ";", "`", "*", "x", "Z", "7", ".", "/", "@", "%3D", "+", "(", ")", "\u00e9"}

func mutate(rng *rand.Rand, s string, lits []string) string {
	if len(s) == 0 {
		return s
	}
	i := rng.Intn(len(s) + 1)
	j := i + rng.Intn(6)
	if j > len(s) {
		j = len(s)
	}
	switch rng.Intn(7) {
	case 0, 1: // insert a piece
		return s[:i] + pieces[rng.Intn(len(pieces))] + s[i:]
	case 2: // delete a run
		return s[:i] + s[j:]
	case 3: // replace a run with a piece
		return s[:i] + pieces[rng.Intn(len(pieces))] + s[j:]
	case 4: // duplicate a run
		return s[:j] + s[i:j] + s[j:]
	case 5: // splice another literal
		o := lits[rng.Intn(len(lits))]
		seps := []string{" ", "\n", `\n`, "\n  ", ""}
		if rng.Intn(2) == 0 {
			return s + seps[rng.Intn(len(seps))] + o
		}
		return o + seps[rng.Intn(len(seps))] + s
	default: // swap case of a run
		return s[:i] + swapCase(s[i:j]) + s[j:]
	}
}

func swapCase(s string) string {
	b := []byte(s)
	for k, c := range b {
		switch {
		case 'a' <= c && c <= 'z':
			b[k] = c - 32
		case 'A' <= c && c <= 'Z':
			b[k] = c + 32
		}
	}
	return string(b)
}

func lines(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		fail(err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	var out []string
	for sc.Scan() {
		var s string
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			fail(err)
		}
		out = append(out, s)
	}
	return out
}

var word = regexp.MustCompile(`[\p{L}\p{N}_]{4,}`)

func counts(s string) map[string]int {
	c := map[string]int{}
	for _, w := range word.FindAllString(s, -1) {
		c[w]++
	}
	return c
}

// compare prints each input whose words old redacted and nw keeps, then
// the counts.
func compare(inP, oldP, newP string) {
	in, old, nw := lines(inP), lines(oldP), lines(newP)
	if len(in) != len(old) || len(in) != len(nw) {
		fail(fmt.Errorf("%d inputs, %d and %d outputs: run both revisions on the same inputs", len(in), len(old), len(nw)))
	}
	leaks, quoted, changed := 0, 0, 0
	for k := range in {
		if old[k] == nw[k] {
			continue
		}
		changed++
		ci, co, cn := counts(in[k]), counts(old[k]), counts(nw[k])
		var ws []string
		for w, n := range ci {
			if w != "REDACTED" && co[w] < n && cn[w] > co[w] {
				ws = append(ws, w)
			}
		}
		if len(ws) == 0 {
			continue
		}
		sort.Strings(ws)
		kind := "LEAK"
		if afterQuote(nw[k], ws) {
			kind, quoted = "QUOTED", quoted+1
		} else {
			leaks++
		}
		fmt.Printf("%s %v\n  in:  %q\n  old: %q\n  new: %q\n", kind, ws, in[k], old[k], nw[k])
	}
	fmt.Printf("inputs %d changed %d leaks %d quoted %d\n", len(in), changed, leaks, quoted)
}

// markQuote is a mark and the quote that closes its string.
var markQuote = regexp.MustCompile(`\[REDACTED\]\\?["']`)

// afterQuote reports whether every word of ws is in s after a mark and a
// closing quote.
func afterQuote(s string, ws []string) bool {
	after := map[string]bool{}
	for _, m := range markQuote.FindAllStringIndex(s, -1) {
		for w := range counts(s[m[1]:]) {
			after[w] = true
		}
	}
	for _, w := range ws {
		if !after[w] {
			return false
		}
	}
	return true
}
