package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/render"
)

// hostileTerminalText is stored text that drives a terminal printed raw:
// colours, an OSC 52 clipboard write ended by BEL, an erased line and a
// carriage return, backspaces, DEL, a C1 CSI (U+009B), and a
// right-to-left override (U+202E) with its pop (U+202C), which shows
// "invoice_fdp.exe" as "invoice_exe.pdf" where bidi is applied.
const hostileTerminalText = "hello \x1b[31mRED\x1b[0m \x1b]52;c;ZWNobyBwd25lZA==\a clip \x1b[2K\rfake\b\bX\x7f \u009b31m invoice_\u202efdp.exe\u202c end"

// hostileMarkText holds the Arabic letter mark (U+061C), an AL character
// (UAX #9), which draws "1999-2024" after it as "2024-1999" where bidi is
// applied, and a tag character (U+E0041), which no screen shows.
const hostileMarkText = "noted, hello \u061c1999-2024 tag\U000e0041"

// TestTextOutputEscapesControls: the commands that print stored text
// (messages, search, context with its memctx, memctx, replay) write no
// control character but line feed and tab; each is written as its JSON
// escape (\u001b). Before, an escape sequence in a stored message reached
// the terminal as it was. --json output keeps the stored text's value.
func TestTextOutputEscapesControls(t *testing.T) {
	dir := storedDir(t, engine.Config{}, true, inThreadT(
		engine.Message{Role: "user", Content: hostileTerminalText},
		engine.Message{Role: "assistant", Content: hostileMarkText},
	))
	if code, out, stderr := run(t, nil, "--dir", dir, "context", "--thread", "t", "--run-id", "run-esc", "--query", "hello clip", "--top-k", "1"); code != 0 {
		t.Fatalf("context: exit %d\n%s%s", code, out, stderr)
	}
	for _, args := range [][]string{
		{"messages", "--thread", "t"},
		{"search", "--resource", "r", "hello clip"},
		{"memctx", "run-esc"},
		{"replay", "run-esc"},
	} {
		code, out, stderr := run(t, nil, append([]string{"--dir", dir}, args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", args[0], code, out, stderr)
		}
		if bad := controlIn(out); bad >= 0 {
			t.Errorf("%s: standard output holds control character %U:\n%q", args[0], bad, out)
		}
		if !strings.Contains(out, `\u001b[31mRED`) {
			t.Errorf("%s: the escape is not shown as \\u001b:\n%s", args[0], out)
		}
		if !strings.Contains(out, `invoice_\u202ef`) {
			t.Errorf("%s: the override is not shown as \\u202e:\n%s", args[0], out)
		}
		if !strings.Contains(out, `\u061c1999-2024`) {
			t.Errorf("%s: the Arabic letter mark is not shown as \\u061c:\n%s", args[0], out)
		}
	}
	code, out, _ := run(t, nil, "--dir", dir, "messages", "--thread", "t", "--json")
	var msgs []engine.Message
	if err := json.Unmarshal([]byte(out), &msgs); code != 0 || err != nil || len(msgs) != 2 || msgs[0].Content != hostileTerminalText || msgs[1].Content != hostileMarkText {
		t.Fatalf("messages --json: exit %d, %v: %+v", code, err, msgs)
	}
}

// TestTextOutputCRLF: `mnemo wm get`, which prints a working memory whole,
// prints one written on Windows with its CRLF line breaks as they are, as
// the prompt passes them, and a carriage return no line feed follows as
// \u000d. Before, every carriage return was printed as \u000d, one at every
// line end. (The listings, messages among them, fold line breaks.)
func TestTextOutputCRLF(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(t.TempDir(), "s.md")
	if err := os.WriteFile(state, []byte("# profile\r\n- name: Ana\r\n- note: typed\rdrawn over\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "wm", "set", "--resource", "r", "--markdown", state); code != 0 {
		t.Fatalf("wm set: exit %d: %s", code, stderr)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "wm", "get", "--resource", "r")
	if code != 0 {
		t.Fatalf("wm get: exit %d: %s", code, stderr)
	}
	if want := "# profile\r\n- name: Ana\r\n- note: typed" + `\u000d` + "drawn over\r\n"; !strings.Contains(out, want) {
		t.Errorf("wm get: standard output lacks %q:\n%q", want, out)
	}
}

// controlIn returns the first control character of s other than line
// feed and tab, line or paragraph separator, or render.Hidden character
// (bidirectional control, tag or interlinear annotation character), or -1.
func controlIn(s string) rune {
	for _, r := range s {
		if r == utf8.RuneError || (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) ||
			r == 0x2028 || r == 0x2029 || render.Hidden(r) {
			return r
		}
	}
	return -1
}

// TestTermSafe: what the writer escapes and what it passes, byte for
// byte: C0 but line feed and tab (a carriage return when no line feed
// follows: a CRLF passes), DEL, C1, the line and paragraph
// separators (U+2028, U+2029: line breaks to a terminal or log viewer),
// the bidirectional embeddings, overrides, isolates and marks (U+061C is a
// strong AL character: "1999-2024" after it is drawn "2024-1999"), the tag
// characters (a surrogate pair, as JSON writes them) and the interlinear
// annotation characters are escaped; right-to-left letters, the joiners,
// the zero-width space, a subdivision flag's base and the characters next
// to the escaped ranges pass.
func TestTermSafe(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"Plain", "a\tb\nc", "a\tb\nc"},
		{"C0", "a\x1b[1m\r\x00", `a\u001b[1m\u000d\u0000`},
		// A CRLF is a line break, as the prompt reads it (a message typed
		// on Windows printed \u000d at every line end); a carriage return
		// no line feed follows, the last of a write among them, is escaped.
		{"CRLF", "one\r\ntwo\r\n", "one\r\ntwo\r\n"},
		{"LoneCR", "a\rb\r\r\nc\r", `a\u000db\u000d` + "\r\nc" + `\u000d`},
		{"CRBeforeSeparator", "a\r\u2028\n\r", `a\u000d\u2028` + "\n" + `\u000d`},
		{"DEL", "\x7f", `\u007f`},
		{"C1", "\u0085\u009b\u009f\u00a0", `\u0085\u009b\u009f` + "\u00a0"},
		{"Overrides", "\u202a\u202b\u202c\u202d\u202e", `\u202a\u202b\u202c\u202d\u202e`},
		{"Isolates", "\u2066\u2067\u2068\u2069", `\u2066\u2067\u2068\u2069`},
		{"Separators", "a\u2028b\u2029c", `a\u2028b\u2029c`},
		{"Neighbours", "\u2027\u202f\u2065\u206a", "\u2027\u202f\u2065\u206a"},
		{"Marks", "\u200e\u200f\u061c1999-2024", `\u200e\u200f\u061c1999-2024`},
		{"Tags", "a\U000e0001\U000e0041\U000e007fb", `a\udb40\udc01\udb40\udc41\udb40\udc7fb`},
		{"Annotation", "\ufff9a\ufffab\ufffb", `\ufff9a\ufffab\ufffb`},
		{"Invisible", "\u200b\u200c\u200d\u00ad\ufeff", "\u200b\u200c\u200d\u00ad\ufeff"},
		{"TagNeighbours", "\U000e0080\U000e0100\ufff8\ufffc\u061b\u061d\u200d", "\U000e0080\U000e0100\ufff8\ufffc\u061b\u061d\u200d"},
		{"RightToLeft", "שלום مرحبا", "שלום مرحبا"},
		{"Truncated", "x\xe2\x80", "x\xe2\x80"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			n, err := termSafe{&b}.Write([]byte(c.in))
			if err != nil || n != len(c.in) {
				t.Fatalf("Write: %d, %v; want %d, nil", n, err, len(c.in))
			}
			if got := b.String(); got != c.want {
				t.Errorf("Write(%q) wrote %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// TestErrorOutputEscapesControls: standard error is written as standard
// output is, so an error or skipped record's line that quotes a file's
// text or name carries no control character: a JSONL record whose
// created_at holds a C1 CSI and a right-to-left override unescaped (JSON
// allows both raw in a string), and a file name with ESC. Before, both
// reached the terminal raw.
func TestErrorOutputEscapesControls(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "c.jsonl")
	lines := `{"thread":"t","resource":"r","role":"user","content":"hello"}` + "\n" +
		"{\"thread\":\"t\",\"resource\":\"r\",\"role\":\"user\",\"content\":\"x\",\"created_at\":[\"\u009b2J invoice_\u202efdp.exe\"]}\n"
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string // escaped, on standard error
	}{
		{"SkippedRecord", []string{"ingest", file}, `\u009b2J invoice_\u202efdp.exe`},
		{"FileName", []string{"ingest", filepath.Join(t.TempDir(), "no\x1b[2Jfile.jsonl")}, `no\u001b[2Jfile.jsonl`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, stderr := run(t, nil, append([]string{"--dir", dir}, c.args...)...)
			if bad := controlIn(stderr); bad >= 0 || !strings.Contains(stderr, c.want) {
				t.Errorf("mnemo %s: standard error holds %U, or lacks %q:\n%q", strings.Join(c.args, " "), bad, c.want, stderr)
			}
		})
	}
}

// TestTextOutputEscapesSeparators: `mnemo wm get`, which prints a working
// memory whole, writes a line or paragraph separator (U+2028, U+2029) in
// it as \u2028 and \u2029, so the state cannot start a line of its own
// making in a terminal or log viewer that breaks lines there. Before, both
// passed raw. (The listings fold them as the white space they are.)
func TestTextOutputEscapesSeparators(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(t.TempDir(), "s.md")
	if err := os.WriteFile(state, []byte("# profile\u2028ERROR forged line\u2029end\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "wm", "set", "--resource", "r", "--markdown", state); code != 0 {
		t.Fatalf("wm set: exit %d: %s", code, stderr)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "wm", "get", "--resource", "r")
	if code != 0 {
		t.Fatalf("wm get: exit %d: %s", code, stderr)
	}
	if bad := controlIn(out); bad >= 0 || !strings.Contains(out, `# profile\u2028ERROR forged line\u2029end`) {
		t.Errorf("wm get: standard output holds %U, or lacks the escaped separators:\n%q", bad, out)
	}
}
