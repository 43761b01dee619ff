package recall

import (
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// TestOnDamage: the function OnDamage sets is called once, with the
// damage (ErrCorrupt), when the index is marked damaged, however often it
// is marked; one set on an index already damaged is called at once; nil
// removes it.
func TestOnDamage(t *testing.T) {
	l, err := OpenLexical(filepath.Join(t.TempDir(), "lexical"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var calls atomic.Int32
	var got atomic.Pointer[error]
	l.OnDamage(func(err error) { calls.Add(1); got.Store(&err) })
	if calls.Load() != 0 {
		t.Fatal("called on a healthy index")
	}
	l.markDamaged(errors.New("background merging err"))
	l.markDamaged(errors.New("a second failure"))
	if n := calls.Load(); n != 1 {
		t.Fatalf("called %d times after two damages, want 1", n)
	}
	if p := got.Load(); p == nil || !errors.Is(*p, ErrCorrupt) {
		t.Fatalf("called with %v, want ErrCorrupt", p)
	}
	late := 0
	l.OnDamage(func(error) { late++ })
	if late != 1 {
		t.Fatalf("set on a damaged index: called %d times at once, want 1", late)
	}
	l.OnDamage(nil)
}
