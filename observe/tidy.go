package observe

import "strings"

// tidyContent is the read-time cleanup of a stored row's Content: each
// line starting "- " is written again as renderItems writes an item, one
// "- ", then UntrustedMark when the line's leading markers held it, then
// the fact. Rows stored before obs60 (2026-12-07) may hold list debris:
// "- - fact", one more "- " at each reflection of a reflection, and
// "- [untrusted: from tool output] - fact" or the mark twice; every
// reader (List, so Render, Search, the reflector, the CLI, the inspector
// and serve) sees one marker. Stored rows are never rewritten (nothing is
// changed without a record); Content written since is its own tidy form,
// returned as it is, and so is every line not starting "- ".
func tidyContent(content string) string {
	var b strings.Builder
	done, changed := 0, false // content[:done] is in b
	for start := 0; start < len(content); {
		end := strings.IndexByte(content[start:], '\n')
		if end < 0 {
			end = len(content)
		} else {
			end += start
		}
		if tidy, ok := tidyLine(content[start:end]); !ok {
			b.WriteString(content[done:start])
			b.WriteString(tidy)
			done, changed = end, true
		}
		start = end + 1
	}
	if !changed {
		return content
	}
	b.WriteString(content[done:])
	return b.String()
}

// tidyLine is line as renderItems writes an item, and whether line is
// that already.
func tidyLine(line string) (string, bool) {
	if !strings.HasPrefix(line, "- ") {
		return line, true
	}
	fact, untrusted := leadingMarkers(line) // fact is a suffix of line
	mark := ""
	if untrusted {
		mark = UntrustedMark
	}
	if len(line) == 2+len(mark)+len(fact) && strings.HasPrefix(line[2:], mark) {
		return line, true
	}
	return "- " + mark + fact, false
}
