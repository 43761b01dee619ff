package observe

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxItemChars bounds one stored item's text, in runes. A longer item is
// not cut: splitItems stores it as several items of at most MaxItemChars
// each, split at a sentence or word boundary, and the recorded answer
// counts it (Answer.Split). What bounds an answer as a whole is its size
// (MaxAnswerBytesPerToken × Config.MaxAnswerTokens bytes).
const MaxItemChars = 2000

// stripMarkers takes the list markers renderItems writes before an item
// ("- " and UntrustedMark) off the start of text, however many times they
// were written: the reflector reads the observations' rendered content, and
// a model copying an item back would otherwise store "- - text", one more
// "- " at each reflection. The engine adds both markers itself (trust
// follows the sources, not the text), so the stored item holds the fact only.
func stripMarkers(text string) string {
	text, _ = leadingMarkers(text)
	return text
}

// leadingMarkers is stripMarkers, also reporting whether UntrustedMark was
// among the markers taken off.
func leadingMarkers(text string) (rest string, untrusted bool) {
	for {
		switch t := text + " "; {
		case strings.HasPrefix(t, "- "):
			text = strings.TrimSpace(text[1:])
		case strings.HasPrefix(t, UntrustedMark):
			text, untrusted = strings.TrimSpace(text[len(UntrustedMark)-1:]), true
		default:
			return text, untrusted
		}
	}
}

// splitItems splits every item longer than MaxItemChars into items of at
// most MaxItemChars (splitText), each keeping the item's citations and
// trust, so a long item is stored whole rather than cut. Each piece loses
// the list markers it starts with (stripMarkers): a model joining the
// observations it read copies their "- " into the middle of its item. A
// piece that repeats an earlier item (case-insensitively) is kept once,
// its citations joining the earlier one's. It returns the items, how many were
// split, and how many pieces were such repeats. It runs after redaction,
// so no secret is split past the redactor.
func splitItems(items []Item) (out []Item, split, repeats int) {
	for _, it := range items {
		if utf8.RuneCountInString(it.Text) > MaxItemChars {
			split++
		}
	}
	if split == 0 {
		return items, 0, 0
	}
	first := map[string]int{} // lower-cased text -> index in out
	for _, it := range items {
		for _, piece := range splitText(it.Text, MaxItemChars) {
			if piece = stripMarkers(piece); piece == "" {
				continue
			}
			p := it
			p.Text = piece
			key := strings.ToLower(piece)
			if i, ok := first[key]; ok {
				repeats++
				out[i].Seqs = mergeSorted(out[i].Seqs, p.Seqs)
				out[i].Sources = mergeSorted(out[i].Sources, p.Sources)
				continue
			}
			first[key] = len(out)
			out = append(out, p)
		}
	}
	return out, split, repeats
}

// splitText splits s into pieces of at most max runes, each ending at the
// last sentence end (". ", "! ", "? ", "; ") of its second half, else at
// the last space there, else after max runes; the pieces are trimmed and
// none is empty. s of at most max runes is the only piece.
func splitText(s string, max int) []string {
	var out []string
	for utf8.RuneCountInString(s) > max {
		cut := boundary(s[:runeOffset(s, max)])
		out = append(out, strings.TrimSpace(s[:cut]))
		s = strings.TrimSpace(s[cut:])
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// runeOffset is the byte offset of s's rune n (from 0), len(s) past its end.
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// mergeSorted is the sorted union of a and b, each value once.
func mergeSorted[T cmp.Ordered](a, b []T) []T {
	if len(b) == 0 {
		return a
	}
	m := append(slices.Clone(a), b...)
	slices.Sort(m)
	return slices.Compact(m)
}

// boundary is where head, a piece at its longest, ends: after its last
// sentence end in the second half, else at its last space there, else at
// its end.
func boundary(head string) int {
	half := len(head) / 2
	best := -1
	for _, end := range []string{". ", "! ", "? ", "; "} {
		if i := strings.LastIndex(head, end); i >= half && i+1 > best {
			best = i + 1
		}
	}
	if best > 0 {
		return best
	}
	if i := strings.LastIndexByte(head, ' '); i >= half {
		return i
	}
	return len(head)
}

// finishItems is the last step before an answer is recorded: it redacts
// the items (Config.Redact), then splits the long ones (splitItems), whose
// repeats it counts in d.Duplicates. It logs a split at WARN, with attrs
// (thread and range) and who ("observer" or "reflector"), and returns the
// items and how many were split.
func (o *Observer) finishItems(ctx context.Context, items []Item, d *Dropped, who string, attrs ...any) ([]Item, int) {
	o.redactItems(items)
	items, split, repeats := splitItems(items)
	d.Duplicates += repeats
	if split > 0 {
		o.cfg.Logger.WarnContext(ctx, who+" answer items longer than observe.MaxItemChars stored as several items, none cut",
			append(attrs, "split", split, "maxItemChars", MaxItemChars, "items", len(items))...)
	}
	return items, split
}
