package main

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/engine"
)

// hostileTerminalText is stored text that drives a terminal printed raw:
// colours, an OSC 52 clipboard write ended by BEL, an erased line and a
// carriage return, backspaces, DEL and a C1 CSI (U+009B).
const hostileTerminalText = "hello \x1b[31mRED\x1b[0m \x1b]52;c;ZWNobyBwd25lZA==\a clip \x1b[2K\rfake\b\bX\x7f \u009b31m end"

// TestTextOutputEscapesControls: the commands that print stored text
// (messages, search, context with its memctx, memctx, replay) write no
// control character but line feed and tab; each is written as its JSON
// escape (\u001b). Before, an escape sequence in a stored message reached
// the terminal as it was. --json output keeps the stored text's value.
func TestTextOutputEscapesControls(t *testing.T) {
	dir := storedDir(t, engine.Config{}, true, inThreadT(
		engine.Message{Role: "user", Content: hostileTerminalText},
		engine.Message{Role: "assistant", Content: "noted, hello"},
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
	}
	code, out, _ := run(t, nil, "--dir", dir, "messages", "--thread", "t", "--json")
	var msgs []engine.Message
	if err := json.Unmarshal([]byte(out), &msgs); code != 0 || err != nil || len(msgs) != 2 || msgs[0].Content != hostileTerminalText {
		t.Fatalf("messages --json: exit %d, %v: %+v", code, err, msgs)
	}
}

// controlIn returns the first control character of s other than line
// feed and tab, or -1.
func controlIn(s string) rune {
	for _, r := range s {
		if r == utf8.RuneError || (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
			return r
		}
	}
	return -1
}
