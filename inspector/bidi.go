package inspector

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	prompt "github.com/mnemo-go/mnemo/internal/render"
)

// Stored text on the inspector's pages (a message, a tool call's
// arguments, an observation, a working-memory line, a thread's title, a
// run's query, an id) comes from anyone who can append. html/template
// escapes its markup, not what the Unicode bidirectional algorithm does
// with it: a right-to-left override (U+202E) left open in a run's query
// drew the rest of its line backwards ("Trojan Source", CVE-2021-42574:
// "recentN 2 · topK 1" right to left), and "pay invoice_\u202efdp.exe
// today" read "pay invoice_yadot exe.pdf"; an unclosed right-to-left
// isolate (U+2067) before Hebrew drew the query right of the labels after
// it. The pages therefore
//
//   - isolate every stored field from the page's own text: an inline field
//     is a <bdi> (unicode-bidi: isolate, its direction from its first
//     strong character), a block of text (a message, an observation) has
//     dir="auto" and unicode-bidi: plaintext, so that each of its lines
//     takes its own direction: Arabic or Hebrew reads right to left,
//     right-aligned, an English line under it left to right;
//   - show, not apply, the characters a reader must see (textPieces,
//     idPieces): each as its code point in a box, "[U+202E]", whose title
//     names it, with a note at the top of the page when it holds one
//     (layout.html, shown by a :has rule in style.css). GitHub warns so on
//     a file with bidirectional controls ("This file contains
//     bidirectional Unicode text that may be interpreted or compiled
//     differently than what appears below"), and Gitea shows each as such
//     a box, with a button to apply them; the inspector has no script, and
//     a reader of a memory wants what the model was given, so the box
//     stays.
//
// The model's prompt writes the characters of render.Hidden as escapes
// (\u202e; internal/render), and the CLI writes the controls, separators
// and explicit bidirectional characters as JSON escapes
// (cmd/mnemo/termsafe.go).

// piece is a run of a stored field's text, or one character of it shown
// as a marker: the "text", "inline" and "id" templates (layout.html)
// write Text as html/template escapes it, or, when Marked, a box for
// Mark: `<span class="cp bidi" title="U+202E RIGHT-TO-LEFT
// OVERRIDE">[U+202E]</span>` (class bidi for a bidirectional character,
// ctl for a control, fmt for another).
type piece struct {
	Text string
	// Marked says the piece is the character Mark, not Text.
	Marked bool
	Mark   rune
}

// Label is the marker's text, "[U+202E]".
func (p piece) Label() string { return fmt.Sprintf("[U+%04X]", p.Mark) }

// Title is the marker's tooltip: the code point and its name,
// "U+202E RIGHT-TO-LEFT OVERRIDE".
func (p piece) Title() string {
	name := codePointNames[p.Mark]
	switch {
	case p.Mark > 0xE0020 && p.Mark < 0xE007F:
		name = fmt.Sprintf("TAG CHARACTER %q", p.Mark-0xE0000)
	case unicode.IsControl(p.Mark):
		name = "CONTROL CHARACTER"
	case name == "" && unicode.IsSpace(p.Mark):
		name = "SPACE CHARACTER"
	case name == "":
		name = "FORMAT CHARACTER"
	}
	return fmt.Sprintf("U+%04X %s", p.Mark, name)
}

// Class is the marker's class besides cp: bidi, ctl or fmt.
func (p piece) Class() string {
	switch {
	case isBidi(p.Mark):
		return "bidi"
	case unicode.IsControl(p.Mark):
		return "ctl"
	}
	return "fmt"
}

// textPieces splits s, a free-text field, at each control character but
// tab and line feed (C0, DEL, C1; a carriage return when no line feed
// follows it, as the prompt writes it: a CRLF is a line break, a lone one
// is a line break on the page, HTML reading it as a line feed, where a
// terminal draws the rest of the line over its start), each line or
// paragraph separator (U+2028, U+2029) and each character the model's
// prompt writes as an escape (render.Hidden: the bidirectional
// embeddings, overrides and isolates U+202A-U+202E, U+2066-U+2069, the
// bidirectional marks U+200E, U+200F, U+061C, the tag characters
// U+E0000-U+E007F and the interlinear annotation characters
// U+FFF9-U+FFFB), which are shown as markers. A separator breaks the line
// on the page where a terminal, an editor or the model's prompt may show
// none (or the reverse), and U+2029 ends a bidirectional paragraph,
// closing the embeddings and isolates open before it; the engine refuses
// both in a message's name (62c6071), and the page shows where a text
// holds one. A mark reorders what follows it inside the field that
// isolates it: U+061C before "1999-2024" drew "2024-1999" (the marks
// passed before); a tag character spells text no page shows. The
// zero-width joiners, the zero-width space and every letter pass as they
// are: Persian, the Indic scripts, Thai and emoji need them, and they
// hide nothing but themselves.
func textPieces(s string) []piece { return pieces(s, prompt.Escaped) }

// idPieces splits s, an identifier (a thread, resource, run or tool-call
// id, a working-memory key, a hash), at every character a reader cannot
// see: the controls and bidirectional characters of textPieces, and every
// other format character (the bidirectional marks, zero-width spaces and
// joiners, U+FEFF) and space but U+0020. The engine's ids are ASCII
// (engine.ValidID), so this marks a character only in an id that came
// from elsewhere: a page's path, a store written by another program.
func idPieces(s string) []piece { return pieces(s, hiddenInID) }

// plainTitle is s for the page's <title>, plain text where no element can
// isolate or mark: each character idPieces marks written as "[U+XXXX]".
func plainTitle(s string) string {
	var b strings.Builder
	for _, p := range idPieces(s) {
		if p.Marked {
			b.WriteString(p.Label())
			continue
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// pieces splits s at each character hidden reports, given the character
// and the text after it: one piece for s when there is none.
func pieces(s string, hidden func(r rune, rest string) bool) []piece {
	var out []piece
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:]) // n is 1 for a byte that is not UTF-8
		if !hidden(r, s[i+n:]) {
			i += n
			continue
		}
		if i > start {
			out = append(out, piece{Text: s[start:i]})
		}
		out = append(out, piece{Marked: true, Mark: r})
		i += n
		start = i
	}
	if start < len(s) || len(out) == 0 {
		out = append(out, piece{Text: s[start:]})
	}
	return out
}

// hiddenInID reports whether idPieces shows r as a marker (what follows
// it does not matter).
func hiddenInID(r rune, _ string) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || (unicode.IsSpace(r) && r != ' ')
}

// isExplicitBidi reports whether r is a bidirectional embedding, override
// or isolate (or their pops): U+202A-U+202E, U+2066-U+2069.
func isExplicitBidi(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// isBidi reports whether r is an explicit bidirectional character or a
// bidirectional mark (U+200E, U+200F, U+061C).
func isBidi(r rune) bool {
	return isExplicitBidi(r) || r == 0x200e || r == 0x200f || r == 0x061c
}

// codePointNames are the Unicode names of the format characters (and
// the line and paragraph separators) a marker names.
var codePointNames = map[rune]string{
	0x061c:  "ARABIC LETTER MARK",
	0x200b:  "ZERO WIDTH SPACE",
	0x200c:  "ZERO WIDTH NON-JOINER",
	0x200d:  "ZERO WIDTH JOINER",
	0x200e:  "LEFT-TO-RIGHT MARK",
	0x200f:  "RIGHT-TO-LEFT MARK",
	0xfff9:  "INTERLINEAR ANNOTATION ANCHOR",
	0xfffa:  "INTERLINEAR ANNOTATION SEPARATOR",
	0xfffb:  "INTERLINEAR ANNOTATION TERMINATOR",
	0xe0001: "LANGUAGE TAG",
	0xe0020: "TAG SPACE",
	0xe007f: "CANCEL TAG",
	0x202a:  "LEFT-TO-RIGHT EMBEDDING",
	0x202b:  "RIGHT-TO-LEFT EMBEDDING",
	0x202c:  "POP DIRECTIONAL FORMATTING",
	0x202d:  "LEFT-TO-RIGHT OVERRIDE",
	0x202e:  "RIGHT-TO-LEFT OVERRIDE",
	0x2028:  "LINE SEPARATOR",
	0x2029:  "PARAGRAPH SEPARATOR",
	0x2060:  "WORD JOINER",
	0x2066:  "LEFT-TO-RIGHT ISOLATE",
	0x2067:  "RIGHT-TO-LEFT ISOLATE",
	0x2068:  "FIRST STRONG ISOLATE",
	0x2069:  "POP DIRECTIONAL ISOLATE",
	0xfeff:  "ZERO WIDTH NO-BREAK SPACE",
}
