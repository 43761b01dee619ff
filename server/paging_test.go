package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/server"
)

// TestMessagesPaging: GET /v1/threads/{t}/messages answers a page (100 by
// default, limit up to 1000) and says where the next one starts, forward
// (nextFromSeq) and backward from the newest (beforeSeq, nextBeforeSeq);
// a bad limit or beforeSeq is a 400 naming it.
func TestMessagesPaging(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	msgs := make([]engine.Message, 150)
	for i := range msgs {
		msgs[i] = engine.Message{Role: "user", Content: fmt.Sprintf("turn %d", i+1)}
	}
	ctx := context.Background()
	for i := 0; i < len(msgs); i += 50 {
		if _, err := h.e.Append(ctx, engine.AppendRequest{ThreadID: "t-bob", ResourceID: "res-bob", Messages: msgs[i : i+50]}); err != nil {
			t.Fatal(err)
		}
	}
	const pattern = "/v1/threads/{thread}/messages"
	page := func(query string) server.MessageList {
		t.Helper()
		var l server.MessageList
		h.ok("GET", pattern, "/v1/threads/t-bob/messages"+query, bobToken, nil, 200).decode(t, &l)
		return l
	}
	seqs := func(l server.MessageList) (first, last int64) {
		if len(l.Messages) == 0 {
			return 0, 0
		}
		return l.Messages[0].Seq, l.Messages[len(l.Messages)-1].Seq
	}
	if l := page(""); len(l.Messages) != 100 || l.NextFromSeq != 101 || l.NextBeforeSeq != 0 {
		f, la := seqs(l)
		t.Fatalf("default page: %d messages (%d..%d) next %d, want 100 and nextFromSeq 101", len(l.Messages), f, la, l.NextFromSeq)
	}
	var got []int64
	for q := "?limit=40"; ; {
		l := page(q)
		for _, m := range l.Messages {
			got = append(got, m.Seq)
		}
		if l.NextFromSeq == 0 {
			break
		}
		q = fmt.Sprintf("?limit=40&fromSeq=%d", l.NextFromSeq)
	}
	if len(got) != 150 || got[0] != 1 || got[149] != 150 {
		t.Fatalf("forward pages gave %d messages", len(got))
	}
	if l := page("?fromSeq=10&toSeq=20&limit=11"); len(l.Messages) != 11 || l.NextFromSeq != 0 {
		t.Fatalf("a bounded range in one page: %d, next %d", len(l.Messages), l.NextFromSeq)
	}
	l := page("?beforeSeq=1000000&limit=60")
	if f, la := seqs(l); f != 91 || la != 150 || l.NextBeforeSeq != 91 {
		t.Fatalf("latest page: %d..%d nextBeforeSeq %d, want 91..150 and 91", f, la, l.NextBeforeSeq)
	}
	l = page(fmt.Sprintf("?beforeSeq=%d&limit=60", l.NextBeforeSeq))
	if f, la := seqs(l); f != 31 || la != 90 || l.NextBeforeSeq != 31 {
		t.Fatalf("older page: %d..%d nextBeforeSeq %d", f, la, l.NextBeforeSeq)
	}
	if l = page("?beforeSeq=31&limit=60"); len(l.Messages) != 30 || l.NextBeforeSeq != 0 {
		t.Fatalf("oldest page: %d messages nextBeforeSeq %d, want 30 and none", len(l.Messages), l.NextBeforeSeq)
	}
	// beforeSeq pages back within fromSeq and toSeq, as documented
	// (/openapi.json, docs/serve.md): no page below fromSeq.
	for _, c := range []struct {
		q                 string
		first, last, next int64
	}{
		{"?fromSeq=100&beforeSeq=131&limit=20", 111, 130, 111},
		{"?fromSeq=100&beforeSeq=111&limit=20", 100, 110, 0},
		{"?fromSeq=10&toSeq=20&beforeSeq=1000&limit=5", 16, 20, 16},
		{"?beforeSeq=1", 0, 0, 0}, // what precedes the first message: none
	} {
		l := page(c.q)
		if f, la := seqs(l); f != c.first || la != c.last || l.NextBeforeSeq != c.next {
			t.Errorf("%s: %d..%d nextBeforeSeq %d, want %d..%d and %d", c.q, f, la, l.NextBeforeSeq, c.first, c.last, c.next)
		}
	}
	// An empty range is refused as toSeq below fromSeq is (fromSeq=8
	// with beforeSeq=3 or 8 was 200 and no message).
	for q, field := range map[string]string{"limit=0": "limit", "limit=1001": "limit", "limit=x": "limit", "beforeSeq=0": "beforeSeq", "beforeSeq=-3": "beforeSeq",
		"fromSeq=8&beforeSeq=3": "beforeSeq", "fromSeq=8&beforeSeq=8": "beforeSeq", "fromSeq=10&toSeq=20&beforeSeq=5": "beforeSeq", "fromSeq=3&toSeq=2": "toSeq"} {
		r := h.do("GET", "/v1/threads/t-bob/messages?"+q, bobToken, nil)
		if r.status != 400 || r.problem(t).Field != field {
			t.Errorf("?%s: %d %s, want 400 naming %s", q, r.status, r.body, field)
		}
		h.validate("GET", pattern, r)
	}
	if p := h.do("GET", "/v1/threads/t-bob/messages?fromSeq=8&beforeSeq=3", bobToken, nil).problem(t); p.Detail != "beforeSeq must be > fromSeq (8): the page holds fromSeq <= seq < beforeSeq; got 3" {
		t.Errorf("?fromSeq=8&beforeSeq=3: %q", p.Detail)
	}
	if r := h.do("GET", "/v1/threads/t-bob/messages?limit=5", aliceToken, nil); r.status != 404 {
		t.Errorf("another tenant's thread: %d, want 404", r.status)
	}
}

// TestThreadsPaging: GET /v1/threads pages with limit and offset and says
// where the next page starts (nextOffset); pages never cross a tenant's
// resources.
func TestThreadsPaging(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	for i := range 5 {
		h.seed(fmt.Sprintf("t-bob-%d", i), "res-bob", bobToken, "hello")
		h.seed(fmt.Sprintf("t-alice-%d", i), "res-alice", aliceToken, "hello")
	}
	list := func(token, query string) server.ThreadList {
		t.Helper()
		var l server.ThreadList
		h.ok("GET", "/v1/threads", "/v1/threads"+query, token, nil, 200).decode(t, &l)
		return l
	}
	var bob []string
	for q := "?limit=2"; ; {
		l := list(bobToken, q)
		for _, th := range l.Threads {
			bob = append(bob, th.ID)
		}
		if l.NextOffset == 0 {
			break
		}
		q = fmt.Sprintf("?limit=2&offset=%d", l.NextOffset)
	}
	if len(bob) != 5 || strings.Contains(strings.Join(bob, ","), "alice") {
		t.Fatalf("bob's pages: %v, want his 5 threads only", bob)
	}
	if l := list(opsToken, "?limit=7"); len(l.Threads) != 7 || l.NextOffset != 7 {
		t.Fatalf("operator page: %d threads next %d", len(l.Threads), l.NextOffset)
	}
	if l := list(opsToken, "?limit=7&offset=7"); len(l.Threads) != 3 || l.NextOffset != 0 {
		t.Fatalf("operator last page: %d threads next %d", len(l.Threads), l.NextOffset)
	}
	if l := list(aliceToken, "?resourceId=res-alice&limit=1000"); len(l.Threads) != 5 || l.NextOffset != 0 {
		t.Fatalf("alice: %d threads", len(l.Threads))
	}
	for q, field := range map[string]string{"limit=0": "limit", "limit=1001": "limit", "offset=-1": "offset"} {
		if r := h.do("GET", "/v1/threads?"+q, bobToken, nil); r.status != 400 || r.problem(t).Field != field {
			t.Errorf("?%s: %d %s, want 400 naming %s", q, r.status, r.body, field)
		}
	}
}

// TestOpenAPIBeforeSeqRange: the document says that beforeSeq pages
// within fromSeq and toSeq, which the server did (engine.PageRequest)
// while the document and docs/serve.md gave beforeSeq alone.
func TestOpenAPIBeforeSeqRange(t *testing.T) {
	h := newHarness(t, false, server.Config{})
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct{ Name, Description string } `json:"parameters"`
		} `json:"paths"`
	}
	h.do("GET", "/openapi.json", "", nil).decode(t, &doc)
	for _, p := range doc.Paths["/v1/threads/{thread}/messages"]["get"].Parameters {
		if p.Name == "beforeSeq" {
			if !strings.Contains(p.Description, "with fromSeq or toSeq, within them") {
				t.Errorf("beforeSeq: %q, want it to say it pages within fromSeq and toSeq", p.Description)
			}
			return
		}
	}
	t.Fatal("no beforeSeq parameter")
}
