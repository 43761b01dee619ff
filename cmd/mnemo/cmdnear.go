package main

import (
	"strconv"
	"strings"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// unknownCommand words the refusal of name, a word where a command goes,
// given after the global flags global (the words before it) and followed
// by rest: `unknown command "serv" (did you mean serve?)` for the
// command it most likely meant (nearCommand), and, when name follows the value of --dir or --db given as a
// word of its own, a second line that quotes the path the shell split at
// a space: `a path with a space must be quoted: mnemo --dir '/tmp/my
// dir' check` (the words up to the first command joined into the path;
// none when no command follows).
func unknownCommand(name string, global, rest []string) string {
	line := "unknown command " + strconv.Quote(name)
	names := make([]string, 0, len(commands)+1)
	for n := range commands {
		names = append(names, n)
	}
	if near := nearCommand(name, append(names, "help")); near != "" {
		line += " (did you mean " + near + "?)"
	}
	if hint := spacedPath(global, name, rest); hint != "" {
		line += "\n" + hint
	}
	return line
}

// spacedPath is the hint for a path the shell split at a space:
// `mnemo --dir /tmp/my dir check` gave --dir "/tmp/my" and the command
// "dir". It returns "" unless global ends with --dir or --db and its
// value as two words (--dir=/tmp/my, one word, is split the same way and
// counted too).
func spacedPath(global []string, name string, rest []string) string {
	if len(global) == 0 {
		return ""
	}
	last := global[len(global)-1]
	flagName, value, before := "", "", global[:len(global)-1]
	for _, f := range []string{"dir", "db"} {
		for _, dash := range []string{"-", "--"} {
			if v, ok := strings.CutPrefix(last, dash+f+"="); ok {
				flagName, value = "--"+f, v
			} else if len(global) >= 2 && global[len(global)-2] == dash+f {
				flagName, value, before = "--"+f, last, global[:len(global)-2]
			}
		}
	}
	if flagName == "" {
		return ""
	}
	words := []string{value, name}
	cmd := len(rest) // the first command after name
	for i, w := range rest {
		if _, ok := commands[w]; ok {
			cmd = i
			break
		}
		words = append(words, w)
	}
	if cmd == len(rest) {
		return "" // no command follows: a mistyped command, most likely
	}
	line := []string{"mnemo"}
	for _, w := range before {
		line = append(line, shellWord(w))
	}
	line = append(line, flagName, shellWord(strings.Join(words, " ")))
	for _, w := range rest[cmd:] {
		line = append(line, shellWord(w))
	}
	return "a path with a space must be quoted: " + strings.Join(line, " ")
}

// nearCommand returns the one of names (mnemo's commands) that name,
// a word no command is, most likely meant, "" when none is likely, in this
// order: the one another tool names so (commandWords: "ls", "rm",
// "import", which is 2 edits from export); one at an edit distance of 1
// or 2, less than half of name's length (jsonkey.Closest, as flagNear for
// a flag: "serv", "chek"); the one name abbreviates, its letters in order
// from the first ("chk", "srch", "msgs": at least 3 letters, half of the
// command's). A word near two commands or none ("obs", "xyz", "q") gets
// none.
func nearCommand(name string, names []string) string {
	lower := strings.ToLower(name)
	if w, ok := commandWords[lower]; ok {
		return w // "import" is 2 edits from export
	}
	if near := jsonkey.Closest(name, names); near != "" {
		return near
	}
	if len(lower) >= 3 {
		found := ""
		for _, n := range names {
			if n[0] == lower[0] && 2*len(lower) >= len(n) && subsequence(lower, n) {
				if found != "" {
					found = ""
					break
				}
				found = n
			}
		}
		return found
	}
	return ""
}

// commandWords maps the words other tools give their commands to
// mnemo's command that does the same, for a did-you-mean.
var commandWords = map[string]string{
	"ls": "threads", "list": "threads",
	"rm": "delete", "del": "delete", "remove": "delete", "erase": "delete",
	"import": "ingest", "load": "ingest",
	"find": "search", "grep": "search", "query": "search",
	"fsck": "check", "verify": "check",
	"dump": "export",
}

// subsequence reports whether the bytes of a occur in b in order.
func subsequence(a, b string) bool {
	i := 0
	for j := 0; j < len(b) && i < len(a); j++ {
		if a[i] == b[j] {
			i++
		}
	}
	return i == len(a)
}
