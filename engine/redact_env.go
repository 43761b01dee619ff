package engine

import (
	"regexp"
	"sort"
	"strings"
)

// yamlEnvStart is yaml-named-value's pattern: a line whose key (after
// its indentation and a block sequence entry's dash) is name or value, in
// lowercase as Kubernetes writes them, and the rest of the text, which
// yamlEnvEntries reads entry by entry.
var yamlEnvStart = regexp.MustCompile(`(?m)^[ \t]*(?:-[ \t]+)*(?:name|value|["'](?:name|value)["'])[ \t]*:(?s:.*)`)

// yamlEnvKey is the key of an env entry's line, after its column: name
// or value, quoted or not (group 1).
var yamlEnvKey = regexp.MustCompile(`^["']?(name|value)["']?[ \t]*:`)

// yamlEnvEntries replaces, in s (yaml-named-value's match: lines from a
// name or value key on), the value of each Kubernetes env entry whose
// name ends in a credential name (EnvVar v1 core: - name: DB_PASSWORD\n
// value: hunter2), its keys in either order, other keys of the entry
// between them (valueFrom:, foo: bar): the value key's line and the lines
// under it (indented more than its column) are replaced as a credential
// key's value is (yamlValueKey). An entry is the lines from its first
// name or value key at column c: keys at c, lines indented more (a key's
// own lines, a block scalar that may hold "value: x"), blank and comment
// lines. It ends at a line indented less (the next entry's dash, the
// parent's next key), a line at c that is no key (envOtherKey: prose,
// with a colon or not) or a second name or value key at c. Before (red58), a regular expression took a name and
// the value key right after it, or a value and the name with no other
// value key between: - name: DB_PASSWORD\n  valueFrom: x\n  value:
// hunter2 and a block value holding "value:" (- value: |\n    value:
// hunter2\n  name: DB_PASSWORD) were kept. Every other byte stays; the
// entries of a column are read once, so the cost is the text's length
// times its depth of nested entries.
func yamlEnvEntries(s string) string {
	lines := strings.SplitAfter(s, "\n")
	scanned := map[int]int{} // column → end of the last entry read at it
	var values [][2]int      // the value lines to replace, in order of their first line
	for i := 0; i < len(lines); i++ {
		c, key := envKeyAt(lines[i])
		if key == "" || i < scanned[c] {
			continue
		}
		end, value := envEntry(lines, i, c)
		scanned[c] = end
		if value < 0 {
			continue
		}
		own := value + 1
		for own < end && (strings.TrimSpace(lines[own]) == "" || indentOf(lines[own]) > c) {
			own++
		}
		values = append(values, [2]int{value, own})
	}
	if values == nil {
		return s
	}
	sort.Slice(values, func(a, b int) bool { return values[a][0] < values[b][0] })
	var out strings.Builder
	next := 0 // lines before it are written
	for _, v := range values {
		if v[0] < next {
			continue // a value nested in a value replaced
		}
		for _, l := range lines[next:v[0]] {
			out.WriteString(l)
		}
		out.WriteString(yamlValueKey(strings.Join(lines[v[0]:v[1]], "")))
		next = v[1]
	}
	for _, l := range lines[next:] {
		out.WriteString(l)
	}
	return out.String()
}

// envKeyAt is the column of line's key (yamlKeyColumn) and the key when
// it is name or value ("" otherwise).
func envKeyAt(line string) (int, string) {
	c := yamlKeyColumn(line)
	m := yamlEnvKey.FindStringSubmatch(line[c:])
	if m == nil {
		return c, ""
	}
	return c, m[1]
}

// envOtherKey is a key of an env entry other than name and value, at its
// column (valueFrom:, "foo": bar, x$y:): a YAML plain key with no blank
// or colon in it, or a quoted one, then a colon and a blank or the line's
// end. Before (red62), any line holding a colon continued the entry, and
// prose with a colon between name: API_TOKEN and a later value: (The team
// says: rotate it) let that value, words, be replaced. A plain key is
// any non-blank characters (rev63: red62's word characters, '.' and '-'
// ended the entry at "fo$o:", and a block value before it, a password,
// was stored in clear); prose is told by its blanks.
var envOtherKey = regexp.MustCompile(`^(?:[^\s"'#:][^\s:]*|"[^"\r\n]*"|'[^'\r\n]*')[ \t]*:(?:[ \t]|\r?\n|$)`)

// envEntry reads the env entry whose first name or value key is lines[i],
// at column c: it returns the index of the line after the entry and of
// its value key's line when its name (at c) ends in a credential name
// (yamlNameLine), else -1.
func envEntry(lines []string, i, c int) (end, value int) {
	value, named := -1, false
	seen := map[string]bool{}
	for end = i; end < len(lines); end++ {
		l := lines[end]
		if strings.TrimSpace(l) == "" {
			continue
		}
		if end > i && indentOf(l) < c {
			break
		}
		if end > i && indentOf(l) > c {
			continue
		}
		col, key := envKeyAt(l)
		if key == "" {
			if t := strings.TrimSpace(l); t[0] != '#' && !envOtherKey.MatchString(l[col:]) {
				break // no key of the entry's mapping: prose (The team says: rotate it)
			}
			continue
		}
		if seen[key] {
			break
		}
		seen[key] = true
		if key == "value" {
			value = end
		} else {
			named = yamlNameLine.MatchString(strings.TrimRight(l[yamlKeyColumn(l):], "\r\n"))
		}
	}
	if !named {
		return end, -1
	}
	return end, value
}
