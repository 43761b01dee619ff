package inspector

import "strings"

// DiffLine is one line of a line diff: Op is ' ' (kept), '-' (only in the
// old text) or '+' (only in the new text).
type DiffLine struct {
	// Op is " " (kept), "-" (old text only) or "+" (new text only).
	Op string
	// Text is the line, without its line break (a line feed, or a
	// carriage return and a line feed).
	Text string
}

// lineDiff returns the line diff of a and b by longest common subsequence
// (quadratic in lines: the texts are a prompt's system part or a
// working-memory state, tens of lines).
func lineDiff(a, b string) []DiffLine {
	x, y := splitLines(a), splitLines(b)
	n, m := len(x), len(y)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []DiffLine
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case x[i] == y[j]:
			out = append(out, DiffLine{" ", x[i]})
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, DiffLine{"-", x[i]})
			i++
		default:
			out = append(out, DiffLine{"+", y[j]})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, DiffLine{"-", x[i]})
	}
	for ; j < m; j++ {
		out = append(out, DiffLine{"+", y[j]})
	}
	return out
}

// splitLines splits s into its lines, without their line breaks: a line
// feed, or a CRLF, as the prompt reads one (render.Escaped passes the
// carriage return of a CRLF; a text written on Windows would otherwise
// show one as a marker at the end of every line). Trailing line breaks
// make no empty lines.
func splitLines(s string) []string {
	lines := strings.Split(s, "\n")
	for i := range len(lines) - 1 { // the last line has no line feed after it
		lines[i] = strings.TrimSuffix(lines[i], "\r")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
