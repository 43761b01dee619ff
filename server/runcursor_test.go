package server_test

import (
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// TestRunsCursor: paging GET /v1/runs by nextCursor while runs are
// recorded between pages lists every run recorded before the first page
// exactly once, newest first, on both backends; by offset (deprecated)
// the same walk lists a run twice. A cursor that is not a nextCursor, or
// given with offset, is a 400 naming cursor; alice's cursor in bob's
// listing gives only bob's runs (the listing's filter holds whatever the
// cursor).
func TestRunsCursor(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		h := newHarnessOn(t, true, server.Config{}, be.Config(t, engine.Config{}))
		h.postThread("t-alice", "res-alice", aliceToken, 0)
		h.postThread("t-bob", "res-bob", bobToken, 0)
		run := func(token, thread, id string) {
			h.ok("POST", "/v1/context", "/v1/context", token, map[string]any{"threadId": thread, "runId": id, "recentN": 1}, 200)
		}
		for i := range 7 {
			run(aliceToken, "t-alice", fmt.Sprintf("a-%d", i))
		}
		run(bobToken, "t-bob", "b-0")
		runs := func(token, query string) server.RunList {
			t.Helper()
			var l server.RunList
			h.ok("GET", "/v1/runs", "/v1/runs?"+query, token, nil, 200).decode(t, &l)
			return l
		}
		walk := func(mode string) []string {
			var got []string
			q, n := "limit=2", 0
			for page := 0; page < 10; page++ {
				l := runs(aliceToken, q)
				for _, r := range l.Runs {
					got = append(got, r.RunID)
				}
				if l.NextCursor == "" {
					return got
				}
				q = "limit=2&cursor=" + url.QueryEscape(l.NextCursor)
				if mode == "offset" {
					q = fmt.Sprintf("limit=2&offset=%d", len(got))
				}
				if page == 0 {
					n++
					run(aliceToken, "t-alice", fmt.Sprintf("new-%s-%d", mode, n)) // the newest: before the first page
				}
			}
			t.Fatalf("%s: no last page after 10", mode)
			return nil
		}
		if got := walk("cursor"); !slices.Equal(got, []string{"a-6", "a-5", "a-4", "a-3", "a-2", "a-1", "a-0"}) {
			t.Errorf("by cursor: %v, want a-6..a-0 once each", got)
		}
		if got := walk("offset"); len(duplicates(got)) == 0 {
			t.Errorf("by offset: %v, no run twice: the offsets no longer shift", got)
		}
		first := runs(aliceToken, "limit=2")
		if l := runs(bobToken, "limit=2&cursor="+first.NextCursor); len(l.Runs) != 0 && (len(l.Runs) != 1 || l.Runs[0].RunID != "b-0") {
			t.Errorf("alice's cursor in bob's listing: %+v, want his run or none", l.Runs)
		}
		c := first.NextCursor
		for why, q := range map[string]string{"garbled": "cursor=x!", "no time": "cursor=" + c[:2], "a byte more": "cursor=" + c + "AA",
			"empty": "cursor=", "with offset": "cursor=" + c + "&offset=2", "a thread's cursor": "cursor=" + engine.ThreadCursor(engine.Thread{ID: "t", ResourceID: "res-alice"})} {
			r := h.do("GET", "/v1/runs?"+q, aliceToken, nil)
			if r.status != 400 || r.problem(t).Field != "cursor" {
				t.Errorf("%s: %d %s, want a 400 naming cursor", why, r.status, r.body)
			}
			h.validate("GET", "/v1/runs", r)
		}
	})
}
