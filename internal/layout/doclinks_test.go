package layout_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// TestDocLinks: every relative Markdown link of README.md, BENCHMARKS.md
// and docs/*.md names a file that exists and, with "#anchor", a heading
// (or an <a id="…"> anchor) of that file, by GitHub's anchor rule. The
// README's reference moved into docs/, and its links with it.
func TestDocLinks(t *testing.T) {
	root := moduleRoot(t)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{filepath.Join(root, "README.md"), filepath.Join(root, "BENCHMARKS.md")}, pages...)
	for _, page := range pages {
		rel, _ := filepath.Rel(root, page)
		for _, bad := range brokenLinks(t, page) {
			t.Errorf("%s: %s", rel, bad)
		}
	}
}

// TestDocLinksCatchesBroken: the checker finds a missing file, a missing
// anchor of another file and a missing anchor of its own file, and takes
// a heading's anchor and an <a id> as GitHub does.
func TestDocLinksCatchesBroken(t *testing.T) {
	dir := t.TempDir()
	other := "# Other\n\n## Locks, damage and `mnemo check`: what is guaranteed\n\n<a id=\"mcp\"></a>**MCP.**\n"
	page := "# Page\n\n## Serve: HTTP API, MCP and the inspector\n\n" +
		"[ok](other.md#locks-damage-and-mnemo-check-what-is-guaranteed) [ok](other.md#mcp) " +
		"[ok](#serve-http-api-mcp-and-the-inspector) [ok](https://example.com/x#y) [ok](other.md)\n" +
		"`[code](missing.md)`\n```\n[fenced](missing.md)\n```\n" +
		"[bad](missing.md) [bad](other.md#serve) [bad](#locks)\n"
	for name, text := range map[string]string{"other.md": other, "page.md": page} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := brokenLinks(t, filepath.Join(dir, "page.md"))
	want := []string{
		"line 10: link to missing.md: no such file",
		"line 10: link to other.md#serve: other.md has no heading or anchor \"serve\"",
		"line 10: link to #locks: page.md has no heading or anchor \"locks\"",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("broken links:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDocReferences: every docs/NAME.md a Go file names (a comment, an
// error message, a flag's help) exists, but for other projects' pages.
func TestDocReferences(t *testing.T) {
	root := moduleRoot(t)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != root {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		for _, m := range docRef.FindAllString(readPath(t, path), -1) {
			if otherProjectsDocs[m] {
				continue
			}
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(m))); err != nil {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s names %s, which does not exist", rel, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

var (
	// otherProjectsDocs are pages of other projects' docs/ that comments cite.
	otherProjectsDocs = map[string]bool{"docs/api.md": true} // Ollama's
	docRef            = regexp.MustCompile(`\bdocs/[a-z0-9-]+\.md\b`)
	mdLink            = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	inlineCode        = regexp.MustCompile("`[^`]*`")
	htmlAnchor        = regexp.MustCompile(`<a (?:id|name)="([^"]+)"`)
)

// brokenLinks lists the relative links of the Markdown file at path that
// name no file, or no anchor of it, each as "line N: …".
func brokenLinks(t *testing.T, path string) []string {
	t.Helper()
	var bad []string
	for i, line := range proseLines(readPath(t, path)) {
		for _, m := range mdLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(line, ""), -1) {
			if msg := checkLink(t, path, m[1]); msg != "" {
				bad = append(bad, fmt.Sprintf("line %d: link to %s: %s", i+1, m[1], msg))
			}
		}
	}
	return bad
}

// checkLink returns why target, a link of the file at from, is broken, or "".
func checkLink(t *testing.T, from, target string) string {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	file, anchor, _ := strings.Cut(target, "#")
	path := from
	if file != "" {
		path = filepath.Join(filepath.Dir(from), filepath.FromSlash(file))
		if _, err := os.Stat(path); err != nil {
			return "no such file"
		}
	}
	if anchor == "" || !strings.HasSuffix(path, ".md") {
		return ""
	}
	if !markdownAnchors(readPath(t, path))[anchor] {
		return fmt.Sprintf("%s has no heading or anchor %q", filepath.Base(path), anchor)
	}
	return ""
}

// markdownAnchors returns the anchors of a Markdown text: its headings'
// by GitHub's rule (a repeated one gets "-1", "-2", …) and its <a id>s.
func markdownAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(text) {
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			anchors[m[1]] = true
		}
		heading := strings.TrimLeft(line, "#")
		if heading == line || !strings.HasPrefix(heading, " ") || len(line)-len(heading) > 6 {
			continue
		}
		slug := headingSlug(heading)
		if n := seen[slug]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

// headingSlug is GitHub's anchor of a heading: lower case, spaces to
// '-', punctuation but '-' and '_' dropped.
func headingSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// proseLines returns text's lines with those of fenced code blocks
// (and their fences) blanked, so that line numbers stay.
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	fenced := false
	for i, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			lines[i] = ""
		} else if fenced {
			lines[i] = ""
		}
	}
	return lines
}

// readPath returns the text of the file at path.
func readPath(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
