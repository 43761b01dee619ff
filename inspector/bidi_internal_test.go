package inspector

import (
	"slices"
	"testing"
)

// TestPieces: what free text (textPieces) and an identifier (idPieces)
// show as markers, and what passes as it is.
func TestPieces(t *testing.T) {
	txt := func(s string) piece { return piece{Text: s} }
	mark := func(r rune) piece { return piece{Marked: true, Mark: r} }
	cases := []struct {
		name, in   string
		text, id   []piece
		title      string
		markTitles []string // Title of each marker of textPieces, in order
	}{
		{name: "Plain", in: "ana-1", text: []piece{txt("ana-1")}, id: []piece{txt("ana-1")}, title: "ana-1"},
		{name: "Empty", in: "", text: []piece{txt("")}, id: []piece{txt("")}, title: ""},
		{name: "Override", in: "invoice_\u202efdp.exe", text: []piece{txt("invoice_"), mark(0x202e), txt("fdp.exe")},
			id: []piece{txt("invoice_"), mark(0x202e), txt("fdp.exe")}, title: "invoice_[U+202E]fdp.exe",
			markTitles: []string{"U+202E RIGHT-TO-LEFT OVERRIDE"}},
		{name: "Embeddings", in: "\u202aa\u202bb\u202c\u202d", text: []piece{mark(0x202a), txt("a"), mark(0x202b), txt("b"), mark(0x202c), mark(0x202d)},
			id: []piece{mark(0x202a), txt("a"), mark(0x202b), txt("b"), mark(0x202c), mark(0x202d)}, title: "[U+202A]a[U+202B]b[U+202C][U+202D]",
			markTitles: []string{"U+202A LEFT-TO-RIGHT EMBEDDING", "U+202B RIGHT-TO-LEFT EMBEDDING", "U+202C POP DIRECTIONAL FORMATTING", "U+202D LEFT-TO-RIGHT OVERRIDE"}},
		{name: "Isolates", in: "x\u2066\u2067\u2068\u2069", text: []piece{txt("x"), mark(0x2066), mark(0x2067), mark(0x2068), mark(0x2069)},
			id: []piece{txt("x"), mark(0x2066), mark(0x2067), mark(0x2068), mark(0x2069)}, title: "x[U+2066][U+2067][U+2068][U+2069]",
			markTitles: []string{"U+2066 LEFT-TO-RIGHT ISOLATE", "U+2067 RIGHT-TO-LEFT ISOLATE", "U+2068 FIRST STRONG ISOLATE", "U+2069 POP DIRECTIONAL ISOLATE"}},
		{name: "Controls", in: "a\x1b[31mb\x00c\x7fd\u009be", text: []piece{txt("a"), mark(0x1b), txt("[31mb"), mark(0), txt("c"), mark(0x7f), txt("d"), mark(0x9b), txt("e")},
			id: []piece{txt("a"), mark(0x1b), txt("[31mb"), mark(0), txt("c"), mark(0x7f), txt("d"), mark(0x9b), txt("e")}, title: "a[U+001B][31mb[U+0000]c[U+007F]d[U+009B]e",
			markTitles: []string{"U+001B CONTROL CHARACTER", "U+0000 CONTROL CHARACTER", "U+007F CONTROL CHARACTER", "U+009B CONTROL CHARACTER"}},
		// Text keeps its lines and tabs; an id shows them.
		{name: "Whitespace", in: "a\tb\r\nc", text: []piece{txt("a\tb\r\nc")},
			id: []piece{txt("a"), mark('\t'), txt("b"), mark('\r'), mark('\n'), txt("c")}, title: "a[U+0009]b[U+000D][U+000A]c"},
		// A carriage return no line feed follows is shown, as the prompt
		// writes it as \u000d: HTML reads it as a line break, a terminal
		// draws the rest of the line over its start. It went out raw. A
		// CRLF is a line break and passes.
		{name: "LoneCR", in: "a\rb\r\r\nc\r", text: []piece{txt("a"), mark('\r'), txt("b"), mark('\r'), txt("\r\nc"), mark('\r')},
			id: []piece{txt("a"), mark('\r'), txt("b"), mark('\r'), mark('\r'), mark('\n'), txt("c"), mark('\r')}, title: "a[U+000D]b[U+000D][U+000D][U+000A]c[U+000D]",
			markTitles: []string{"U+000D CONTROL CHARACTER", "U+000D CONTROL CHARACTER", "U+000D CONTROL CHARACTER"}},
		// A byte that is not UTF-8 is one piece of text, however it ends.
		{name: "NotUTF8", in: "x\xe2\x80\r\xff", text: []piece{txt("x\xe2\x80"), mark('\r'), txt("\xff")},
			id: []piece{txt("x\xe2\x80"), mark('\r'), txt("\xff")}, title: "x\xe2\x80[U+000D]\xff",
			markTitles: []string{"U+000D CONTROL CHARACTER"}},
		// Right-to-left text passes in text (the element holding it
		// isolates it); its marks are shown, as the model's prompt writes
		// them as escapes (render.Hidden): U+061C before "12-34" draws
		// "34-12" inside the field. They passed before.
		{name: "RightToLeft", in: "שלום\u200f 12 مرحبا\u061c", text: []piece{txt("שלום"), mark(0x200f), txt(" 12 مرحبا"), mark(0x061c)},
			id: []piece{txt("שלום"), mark(0x200f), txt(" 12 مرحبا"), mark(0x061c)}, title: "שלום[U+200F] 12 مرحبا[U+061C]",
			markTitles: []string{"U+200F RIGHT-TO-LEFT MARK", "U+061C ARABIC LETTER MARK"}},
		// Tag characters spell text no page shows ("obey"), and an
		// interlinear annotation may be hidden: both are shown.
		{name: "Tags", in: "ok\U000e006f\U000e0062\U000e007f", text: []piece{txt("ok"), mark(0xe006f), mark(0xe0062), mark(0xe007f)},
			id: []piece{txt("ok"), mark(0xe006f), mark(0xe0062), mark(0xe007f)}, title: "ok[U+E006F][U+E0062][U+E007F]",
			markTitles: []string{`U+E006F TAG CHARACTER 'o'`, `U+E0062 TAG CHARACTER 'b'`, "U+E007F CANCEL TAG"}},
		{name: "Annotation", in: "a\ufff9b\ufffac\ufffb", text: []piece{txt("a"), mark(0xfff9), txt("b"), mark(0xfffa), txt("c"), mark(0xfffb)},
			id: []piece{txt("a"), mark(0xfff9), txt("b"), mark(0xfffa), txt("c"), mark(0xfffb)}, title: "a[U+FFF9]b[U+FFFA]c[U+FFFB]",
			markTitles: []string{"U+FFF9 INTERLINEAR ANNOTATION ANCHOR", "U+FFFA INTERLINEAR ANNOTATION SEPARATOR", "U+FFFB INTERLINEAR ANNOTATION TERMINATOR"}},
		// The joiners of an emoji and the other invisible characters pass
		// in text; an id shows them.
		{name: "Joiners", in: "👩\u200d💻\u200b\ufeff\u00a0", text: []piece{txt("👩\u200d💻\u200b\ufeff\u00a0")},
			id: []piece{txt("👩"), mark(0x200d), txt("💻"), mark(0x200b), mark(0xfeff), mark(0xa0)}, title: "👩[U+200D]💻[U+200B][U+FEFF][U+00A0]"},
		// A line or paragraph separator breaks a line that a terminal or
		// the model's prompt shows as one: text shows them, as an id does.
		{name: "Separators", in: "a\u2028b\u2029c", text: []piece{txt("a"), mark(0x2028), txt("b"), mark(0x2029), txt("c")},
			id: []piece{txt("a"), mark(0x2028), txt("b"), mark(0x2029), txt("c")}, title: "a[U+2028]b[U+2029]c",
			markTitles: []string{"U+2028 LINE SEPARATOR", "U+2029 PARAGRAPH SEPARATOR"}},
		// Markup is not marked: html/template escapes it.
		{name: "Markup", in: `<b title="x">&`, text: []piece{txt(`<b title="x">&`)}, id: []piece{txt(`<b title="x">&`)}, title: `<b title="x">&`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := textPieces(c.in); !slices.Equal(got, c.text) {
				t.Errorf("textPieces(%q) = %+v, want %+v", c.in, got, c.text)
			}
			if got := idPieces(c.in); !slices.Equal(got, c.id) {
				t.Errorf("idPieces(%q) = %+v, want %+v", c.in, got, c.id)
			}
			if got := plainTitle(c.in); got != c.title {
				t.Errorf("plainTitle(%q) = %q, want %q", c.in, got, c.title)
			}
			var titles []string
			for _, p := range textPieces(c.in) {
				if p.Marked {
					titles = append(titles, p.Title())
				}
			}
			if !slices.Equal(titles, c.markTitles) {
				t.Errorf("the markers' titles %q, want %q", titles, c.markTitles)
			}
		})
	}
}

// TestMarkerClass: a marker's class says what it shows.
func TestMarkerClass(t *testing.T) {
	for r, want := range map[rune]string{0x202e: "bidi", 0x2067: "bidi", 0x200f: "bidi", 0x061c: "bidi", 0x1b: "ctl", 0x9b: "ctl", 0x200b: "fmt", 0xa0: "fmt", 0xe0041: "fmt"} {
		if got := (piece{Marked: true, Mark: r}).Class(); got != want {
			t.Errorf("U+%04X: class %q, want %q", r, got, want)
		}
	}
	if got, want := (piece{Marked: true, Mark: 0x202e}).Label(), "[U+202E]"; got != want {
		t.Errorf("label %q, want %q", got, want)
	}
}

// TestSplitLines: a diff's lines end at a line feed or a CRLF, so a text
// written on Windows shows no carriage return marker at every line end; a
// carriage return no line feed follows stays in its line (textPieces
// shows it). Trailing line breaks make no empty lines.
func TestSplitLines(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"\n\n", nil},
		{"a\nb", []string{"a", "b"}},
		{"a\nb\n\n", []string{"a", "b"}},
		{"a\r\nb\r\n", []string{"a", "b"}},
		{"a\r\n\r\nb", []string{"a", "", "b"}},
		{"a\r\r\nb\r", []string{"a\r", "b\r"}},
		{"a\rb", []string{"a\rb"}},
	} {
		if got := splitLines(c.in); !slices.Equal(got, c.want) {
			t.Errorf("splitLines(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
