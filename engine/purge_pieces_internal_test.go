package engine

import "testing"

// TestIDPieces: the pieces of an erased id the index check looks for are
// half the id, between pieceMin and pieceMax bytes, and cover every
// position of the id.
func TestIDPieces(t *testing.T) {
	cases := []struct {
		id         string
		len, count int
	}{
		{"abc", 3, 1},
		{"abcdef", 6, 1},
		{"res-0001", 6, 3},
		{"ana@example.com", 8, 8},
		{"0123456789abcdef0123456789", 12, 15},
		{"3f2b8c1e-9d4a-4f6b-8e2d-1c7a5b9e0f3d", 12, 25},
	}
	for _, c := range cases {
		got := idPieces(c.id)
		if len(got) != c.count {
			t.Errorf("idPieces(%q): %d pieces, want %d", c.id, len(got), c.count)
			continue
		}
		for i, p := range got {
			if len(p) != c.len || string(p) != c.id[i:i+c.len] {
				t.Errorf("idPieces(%q)[%d] = %q, want %d bytes from %d", c.id, i, p, c.len, i)
			}
		}
	}
}
