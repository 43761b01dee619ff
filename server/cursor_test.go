package server_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// cursorBase is the creation time of the threads of the cursor tests: the
// first message of thread i is said i minutes after it.
var cursorBase = time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)

// postThread creates thread id of resource res through the API, its first
// message said min minutes after cursorBase.
func (h *harness) postThread(id, res, token string, min int) {
	h.t.Helper()
	at := cursorBase.Add(time.Duration(min) * time.Minute)
	body := map[string]any{"resourceId": res, "messages": []map[string]any{{"role": "user", "content": "hello", "createdAt": at}}}
	h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/"+id+"/messages", token, body, 200)
}

// threadsPage is one GET /v1/threads answer, schema-checked.
func (h *harness) threadsPage(token, query string) server.ThreadList {
	h.t.Helper()
	var l server.ThreadList
	h.ok("GET", "/v1/threads", "/v1/threads?"+query, token, nil, 200).decode(h.t, &l)
	return l
}

// TestThreadsCursorStable: paging GET /v1/threads by nextCursor while
// threads are created and deleted between the pages lists every thread
// that existed throughout exactly once, and none twice, on both backends,
// for a tenant (its resource set) and an operator (every resource). Paging
// by offset (deprecated) under the same changes misses a thread and lists
// another twice: the fault the cursor removes.
func TestThreadsCursorStable(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		for _, who := range []string{aliceToken, opsToken} {
			got, survivors := pageWhileChanging(t, be, who, "cursor")
			for _, id := range survivors {
				if n := count(got, id); n != 1 {
					t.Errorf("%s by cursor: %s listed %d times, want once (pages %v)", who, id, n, got)
				}
			}
			if dup := duplicates(got); len(dup) > 0 || slices.Contains(got, "a-09") || !slices.Contains(got, "a-late") {
				t.Errorf("%s by cursor: twice %v; a-09 (deleted ahead) or no a-late (created ahead): %v", who, dup, got)
			}
		}
		got, survivors := pageWhileChanging(t, be, aliceToken, "offset")
		missed := slices.DeleteFunc(slices.Clone(survivors), func(id string) bool { return slices.Contains(got, id) })
		if len(missed) == 0 || len(duplicates(got)) == 0 {
			t.Errorf("by offset: missed %v, twice %v: the offsets no longer shift (pages %v)", missed, duplicates(got), got)
		}
	})
}

// pageWhileChanging lists alice's threads (a-00..a-11, created a minute
// apart; bob has 5) three at a time by mode ("cursor" or "offset") as token
// sees them, deleting and creating threads between pages: after the first
// page (a-00..a-02) a-00 is deleted; after the second a-early is created
// before every thread; after the third a-09 (not listed yet) is deleted
// and a-late created after every thread. It returns alice's threads
// listed, in order, and those that existed throughout.
func pageWhileChanging(t *testing.T, be enginetest.Backend, token, mode string) (got, survivors []string) {
	h := newHarnessOn(t, true, server.Config{}, be.Config(t, engine.Config{}))
	for i := range 12 {
		h.postThread(fmt.Sprintf("a-%02d", i), "res-alice", aliceToken, 10+i)
		survivors = append(survivors, fmt.Sprintf("a-%02d", i))
	}
	for i := range 5 {
		h.postThread(fmt.Sprintf("b-%02d", i), "res-bob", bobToken, 10+i)
	}
	survivors = slices.DeleteFunc(survivors, func(id string) bool { return id == "a-00" || id == "a-09" })
	between := []func(){
		func() { h.ok("DELETE", "/v1/threads/{thread}", "/v1/threads/a-00", aliceToken, nil, 200) },
		func() { h.postThread("a-early", "res-alice", aliceToken, 0) },
		func() {
			h.ok("DELETE", "/v1/threads/{thread}", "/v1/threads/a-09", aliceToken, nil, 200)
			h.postThread("a-late", "res-alice", aliceToken, 60)
		},
	}
	q := "limit=3"
	for page := 0; page < 20; page++ {
		l := h.threadsPage(token, q)
		for _, th := range l.Threads {
			if th.ResourceID == "res-alice" {
				got = append(got, th.ID)
			}
		}
		next := map[string]string{"cursor": l.NextCursor, "offset": fmt.Sprint(l.NextOffset)}[mode]
		if next == "" || next == "0" {
			return got, survivors
		}
		q = "limit=3&" + mode + "=" + url.QueryEscape(next)
		if page < len(between) {
			between[page]()
		}
	}
	t.Fatalf("%s: no last page after 20", mode)
	return nil, nil
}

func count(ids []string, id string) int {
	n := 0
	for _, x := range ids {
		if x == id {
			n++
		}
	}
	return n
}

func duplicates(ids []string) []string {
	var dup []string
	for i, id := range ids {
		if slices.Contains(ids[:i], id) {
			dup = append(dup, id)
		}
	}
	return dup
}

// TestThreadsCursorRefused: a cursor that is not a nextCursor (garbled,
// truncated, padded, forged bytes, empty, or given with offset) is a 400
// naming cursor; another tenant's cursor, or one forged at a place of a
// resource the listing does not hold, is a 400 too and shows nothing of
// that resource; a forged cursor at a place of the caller's own resource
// lists only the caller's threads. On both backends (an id holding NUL
// would be an error of Postgres's, not a 400).
func TestThreadsCursorRefused(t *testing.T) {
	enginetest.ForEachBackend(t, testThreadsCursorRefused)
}

func testThreadsCursorRefused(t *testing.T, be enginetest.Backend) {
	h := newHarnessOn(t, true, server.Config{}, be.Config(t, engine.Config{}))
	for i := range 4 {
		h.postThread(fmt.Sprintf("a-%02d", i), "res-alice", aliceToken, i)
		h.postThread(fmt.Sprintf("b-%02d", i), "res-bob", bobToken, i)
	}
	refused := func(token, query, why string) {
		t.Helper()
		r := h.do("GET", "/v1/threads?"+query, token, nil)
		if r.status != 400 || r.problem(t).Field != "cursor" || strings.Contains(string(r.body), `"a-0`) || strings.Contains(string(r.body), `"b-0`) {
			t.Errorf("%s (?%s): %d %s, want a 400 naming cursor", why, query, r.status, r.body)
		}
		h.validate("GET", "/v1/threads", r)
	}
	alice := h.threadsPage(aliceToken, "limit=2")
	if len(alice.Threads) != 2 || alice.NextCursor == "" || alice.NextOffset != 2 {
		t.Fatalf("alice's first page: %+v", alice)
	}
	c := alice.NextCursor
	for why, bad := range map[string]string{
		"not base64url":     "not a cursor!",
		"truncated":         c[:len(c)-3],
		"padded":            c + "==",
		"a byte more":       c + "AA", // a NUL after the id
		"another character": c[:2] + map[bool]string{true: "B", false: "C"}[c[2] != 'B'] + c[3:],
		"empty":             "",
	} {
		refused(aliceToken, "cursor="+url.QueryEscape(bad), why)
	}
	refused(aliceToken, "cursor="+c+"&offset=2", "cursor with offset")
	refused(bobToken, "cursor="+c, "alice's cursor given by bob")
	ops := h.threadsPage(opsToken, "limit=3") // a-00, a-01, a-02: a place in res-alice
	refused(bobToken, "cursor="+ops.NextCursor, "an operator's cursor in alice's resource given by bob")
	forged := engine.ThreadCursor(engine.Thread{ResourceID: "res-alice", CreatedAt: cursorBase.Add(-time.Hour), ID: "a"})
	refused(bobToken, "cursor="+forged, "a forged cursor before alice's threads given by bob")
	refused(bobToken, "resourceId=res-bob&cursor="+c, "alice's cursor on bob's own resource")
	own := engine.ThreadCursor(engine.Thread{ResourceID: "res-bob", CreatedAt: cursorBase.Add(-time.Hour), ID: "a"})
	if l := h.threadsPage(bobToken, "cursor="+own); len(l.Threads) != 4 || l.Threads[0].ID != "b-00" || l.NextCursor != "" {
		t.Errorf("bob's forged cursor at the start of his resource: %+v, want his 4 threads", l)
	}
	next := h.threadsPage(aliceToken, "limit=2&cursor="+c)
	if len(next.Threads) != 2 || next.Threads[0].ID != "a-02" || next.NextCursor != "" || next.NextOffset != 0 {
		t.Errorf("alice's second page: %+v, want a-02, a-03, no next (and no nextOffset on a page by cursor)", next)
	}
}
