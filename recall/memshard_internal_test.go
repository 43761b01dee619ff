package recall

import "testing"

// memShard returns an in-memory lexical index, an Index over it with no
// source, and an empty shard of resource "r" to put documents in (the
// internal tests of the lexical channel, the scratches and the exchange
// rule). The lexical index is closed when the test ends.
func memShard(t *testing.T) (*Lexical, *Index, *shard) {
	t.Helper()
	lex, err := OpenLexical("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lex.Close() })
	ix, err := NewIndex(Config{Lexical: lex, Source: emptySource{}})
	if err != nil {
		t.Fatal(err)
	}
	s := newShard("r", nil, false)
	if err := s.reset(); err != nil {
		t.Fatal(err)
	}
	return lex, ix, s
}
