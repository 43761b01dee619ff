package working_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/working"
)

// TestGetVersion reads each version of a history by its number: the
// initial state as 0, the written ones as written, and after an erasure
// cleared the state (v1, v2 erased → v3) the erased numbers are
// ErrVersionGone naming the key, the number and the current version.
func TestGetVersion(t *testing.T) { forEachBackend(t, testGetVersion) }

func testGetVersion(t *testing.T, b backend) {
	ctx := context.Background()
	db, _ := b.openDB(t)
	m := mustNew(t, db, working.Config{Schema: []byte(`{"type":"object"}`), Scope: working.ScopeResource})
	key := working.ResourceKey("r")
	for i, c := range []string{`{"city":"Lyon"}`, `{"city":"Porto"}`} {
		if _, err := m.Set(ctx, key, c, working.Origin{RunID: "r" + string(rune('1'+i)), ToolCallID: "call_0"}); err != nil {
			t.Fatal(err)
		}
	}
	want := map[int64]string{0: "{}", 1: `{"city":"Lyon"}`, 2: `{"city":"Porto"}`}
	for n, c := range want {
		st, err := m.GetVersion(ctx, key, n)
		if err != nil || st.Version != n || st.Content != c {
			t.Errorf("GetVersion(%d) = v%d %s, %v; want v%d %s", n, st.Version, st.Content, err, n, c)
		}
	}
	tx, err := store.Begin(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := working.Rebuild(ctx, tx, key, nil, time.Now(), func(working.Version) bool { return true }); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		n    int64
		want string // the content, or the error's text
		gone bool
	}{
		{0, "{}", false},
		{1, "resource:r v1 (the state is v3 now)", true},
		{2, "resource:r v2 (the state is v3 now)", true},
		{3, "{}", false},
		{4, "resource:r v4 (the state is v3 now)", true},
	} {
		st, err := m.GetVersion(ctx, key, c.n)
		switch {
		case c.gone && (!errors.Is(err, working.ErrVersionGone) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("GetVersion(%d) after the erasure: %v, want ErrVersionGone with %q", c.n, err, c.want)
		case !c.gone && (err != nil || st.Content != c.want):
			t.Errorf("GetVersion(%d) after the erasure = %s, %v; want %s", c.n, st.Content, err, c.want)
		}
	}
	if _, err := m.GetVersion(ctx, working.ThreadKey("t"), 1); !errors.Is(err, working.ErrInvalidKey) {
		t.Errorf("GetVersion of a thread key on a resource memory: %v, want ErrInvalidKey", err)
	}
}
