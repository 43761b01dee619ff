package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// cancelAfter is a context whose Err is nil for its first n calls and
// context.Canceled after: a client that goes away while its body is
// checked, at a known point of the check, without a timer.
type cancelAfter struct {
	context.Context
	n int
}

func (c *cancelAfter) Err() error {
	if c.n > 0 {
		c.n--
		return nil
	}
	return context.Canceled
}

// wideToolCalls is an append body that decodes: n assistant messages of
// calls tool calls each, whose member walks visit every call's members.
// With last set, the last message's content is a number, which only the
// walk of the last member finds. wideToolCalls(1000, 100, …) is about 4
// MiB (the default body bound) and within the limits.
func wideToolCalls(n, calls int, last bool) string {
	msg := `{"role":"assistant","toolCalls":[` + joinN(`{"id":"c","name":"f","arguments":"{}"}`, calls) + `]}`
	end := msg
	if last {
		end = `{"role":"user","content":5}`
	}
	return `{"messages":[` + joinN(msg, n-1) + `,` + end + `]}`
}

// TestMemberWalkStopsWhenClientGone: the walks over a decoded body's
// members (memberError: caseVariant, NullMember) and over one that did
// not decode (decodeError: badField) give up once the request's context
// is done, within walkCheckEvery members, with an error matching the
// context's. Before, they walked every member of the body (about a second
// of CPU for the worst body within the limits, left7's measure) for a
// client that had gone, and answered as if it were there.
func TestMemberWalkStopsWhenClientGone(t *testing.T) {
	good, bad := wideToolCalls(100, 10, false), wideToolCalls(100, 10, true)
	var v AppendBody
	decodeErr := json.Unmarshal([]byte(bad), &v)
	if decodeErr == nil {
		t.Fatal("the body with a number for content decoded")
	}
	for _, c := range []struct {
		name string
		walk func(w *memberWalk) error
	}{
		{"memberError", func(w *memberWalk) error { return memberError(w, []byte(good), &AppendBody{}) }},
		{"decodeError", func(w *memberWalk) error { return decodeError(w, decodeErr, []byte(bad), &AppendBody{}) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			whole := unboundedWalk()
			if err := c.walk(whole); errors.Is(err, context.Canceled) {
				t.Fatalf("unbounded walk: %v", err)
			}
			w := newWalk(&cancelAfter{Context: context.Background()})
			err := c.walk(w)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("walk with the client gone: %v, want context.Canceled", err)
			}
			if w.n > walkCheckEvery || whole.n < 10*walkCheckEvery {
				t.Errorf("the walk visited %d members of %d, want at most %d", w.n, whole.n, walkCheckEvery)
			}
		})
	}
}

// TestDecodeBodyClientGone: decodeBounded, whose body scans and decoding
// pass while the client is there, answers the context's error when the
// client goes during the member walk, not the body's check.
func TestDecodeBodyClientGone(t *testing.T) {
	l := engine.Limits{MaxMessagesPerAppend: engine.DefaultMaxMessagesPerAppend, MaxToolCalls: engine.DefaultMaxToolCalls}
	for _, body := range []string{wideToolCalls(100, 10, false), wideToolCalls(100, 10, true)} {
		r := httptest.NewRequest("POST", "/v1/threads/t/messages", strings.NewReader(body))
		r = r.WithContext(&cancelAfter{Context: context.Background(), n: 1})
		var v AppendBody
		if err := decodeBounded(r, &v, &l); !errors.Is(err, context.Canceled) {
			t.Errorf("client gone during the walk: %v, want context.Canceled", err)
		}
	}
}

// BenchmarkMemberWalk: the member walks of the widest append body within
// the limits (wideToolCalls(1000, 100): 1000 messages of 100 calls, 4
// MiB) when the client is there (whole) and when it has gone as the walk
// starts (gone: cut off within walkCheckEvery members).
func BenchmarkMemberWalk(b *testing.B) {
	body := []byte(wideToolCalls(1000, 100, false))
	if len(body) > DefaultMaxBodyBytes {
		b.Fatalf("the body is %d bytes, over the default bound %d", len(body), DefaultMaxBodyBytes)
	}
	for _, c := range []struct {
		name string
		ctx  func() context.Context
	}{
		{"whole", context.Background},
		{"gone", func() context.Context { return &cancelAfter{Context: context.Background()} }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				_ = memberError(newWalk(c.ctx()), body, &AppendBody{})
			}
		})
	}
}
