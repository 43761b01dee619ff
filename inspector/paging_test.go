package inspector_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/server"
)

// TestThreadPageOlder: the thread page shows the newest page of messages
// and links to the older ones, never the whole thread.
func TestThreadPageOlder(t *testing.T) {
	e, ts := seed(t, nil)
	msgs := make([]engine.Message, 120)
	for i := range msgs {
		msgs[i] = engine.Message{Role: "user", Content: fmt.Sprintf("filler turn %d.", i+1)}
	}
	if _, err := e.Append(context.Background(), engine.AppendRequest{ThreadID: "ana-1", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	// ana-1 holds 7 seeded turns and these 120: seqs 1..127.
	code, body := get(t, ts.URL+"/ui/threads/ana-1", "")
	if code != 200 || strings.Contains(body, `id="seq-27"`) || !strings.Contains(body, `id="seq-28"`) || !strings.Contains(body, `id="seq-127"`) || !strings.Contains(body, `href="?beforeSeq=28"`) {
		t.Fatalf("newest page: %d, want seqs 28..127 and a link to older ones", code)
	}
	code, body = get(t, ts.URL+"/ui/threads/ana-1?beforeSeq=28", "")
	if code != 200 || !strings.Contains(body, `id="seq-1"`) || !strings.Contains(body, `id="seq-27"`) || strings.Contains(body, `id="seq-28"`) || strings.Contains(body, "beforeSeq=") || !strings.Contains(body, `href="?"`) {
		t.Fatalf("older page: %d, want seqs 1..27, no older link, a newest link", code)
	}
	if code, _ = get(t, ts.URL+"/ui/threads/ana-1?beforeSeq=x", ""); code != 400 {
		t.Fatalf("beforeSeq=x: %d, want 400", code)
	}
}

// TestIndexPages: the index lists a page of threads (100 by default, or
// ?limit=) with a link to the next page by cursor and back to the first,
// never every thread; a tenant's pages hold only its resources. Links of
// earlier versions (?offset=) still answer their page, linking on by
// cursor. A query GET /v1/threads refuses is a 400 page naming the
// parameter.
func TestIndexPages(t *testing.T) {
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"token":"ana-secret-1","resources":["ana"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	e, ts := seed(t, tok)
	// ana-1 and bob-1 are seeded; ana-a000..ana-a099 make ana 101 threads.
	for i := range 100 {
		req := engine.AppendRequest{ThreadID: fmt.Sprintf("ana-a%03d", i), ResourceID: "ana", Messages: []engine.Message{{Role: "user", Content: "hello"}}}
		if _, err := e.Append(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	next := regexp.MustCompile(`href="\?cursor=([A-Za-z0-9_-]+)((?:&amp;limit=\d+)?)">next<`)
	code, body := get(t, ts.URL+"/ui/", "ana-secret-1")
	m := next.FindStringSubmatch(body)
	if code != 200 || !strings.Contains(body, `href="/ui/threads/ana-1"`) || !strings.Contains(body, `href="/ui/threads/ana-a098"`) || strings.Contains(body, `href="/ui/threads/ana-a099"`) || m == nil || m[2] != "" || strings.Contains(body, ">first<") || strings.Contains(body, "bob") {
		t.Fatalf("first page: %d, want ana's first 100 threads and a next link by cursor", code)
	}
	code, body = get(t, ts.URL+"/ui/?cursor="+m[1], "ana-secret-1")
	if code != 200 || !strings.Contains(body, `href="/ui/threads/ana-a099"`) || strings.Contains(body, `href="/ui/threads/ana-1"`) || strings.Contains(body, "cursor=") || !strings.Contains(body, `href="?">first<`) {
		t.Fatalf("second page: %d, want ana-a099 alone, no next link, a first link", code)
	}
	code, body = get(t, ts.URL+"/ui/?limit=2&offset=97", "ana-secret-1")
	m = next.FindStringSubmatch(body)
	if code != 200 || strings.Count(body, `href="/ui/threads/`) != 2 || !strings.Contains(body, `href="/ui/threads/ana-a097"`) || m == nil || m[2] != "&amp;limit=2" || !strings.Contains(body, `href="?limit=2">first<`) {
		t.Fatalf("page of 2 at offset 97: %d, want ana-a096, ana-a097 and links keeping the limit", code)
	}
	code, body = get(t, ts.URL+"/ui/?limit=2&cursor="+m[1], "ana-secret-1")
	if code != 200 || strings.Count(body, `href="/ui/threads/`) != 2 || !strings.Contains(body, `href="/ui/threads/ana-a098"`) || !strings.Contains(body, `href="/ui/threads/ana-a099"`) || strings.Contains(body, "cursor=") {
		t.Fatalf("the page after it by cursor: %d, want ana-a098, ana-a099 and no next link", code)
	}
	// As GET /v1/threads answers: a 400 page naming the parameter. An
	// empty cursor showed the first page, and offset beside a cursor was
	// ignored.
	for _, c := range []struct{ query, name string }{
		{"offset=x", "offset"},
		{"offset=-1", "offset"},
		{"limit=0x", "limit"},
		{"limit=1001", "limit"},
		{"cursor=x", "cursor"},
		{"cursor=" + m[1] + "A", "cursor"},
		{"cursor=", "cursor"},
		{"cursor=&limit=2", "cursor"},
		{"cursor=" + m[1] + "&offset=97", "cursor"},
		{"offset=97&cursor=" + m[1], "cursor"},
		// as GET /v1/threads answers too: limit=0 showed the default
		// page, an empty offset or limit the first page, a repeated
		// parameter its first value, an unknown one was ignored
		{"limit=0", "limit"},
		{"limit=", "limit"},
		{"offset=", "offset"},
		{"limit=2&limit=3", "limit"},
		{"offset=1&offset=2", "offset"},
		{"cursor=" + m[1] + "&cursor=" + m[1], "cursor"},
		{"from=ana-a050", "from"},
		{"limit=2;offset=1", "malformed"},
	} {
		code, body := get(t, ts.URL+"/ui/?"+c.query, "ana-secret-1")
		_, detail, _ := strings.Cut(body, "<p>")
		if code != 400 || !strings.Contains(detail, c.name) {
			t.Errorf("%s: %d, want 400 and a page naming %s; got %.200q", c.query, code, c.name, detail)
		}
	}
}

// TestPageQueries: the thread and run pages refuse a query parameter as
// the API does (server.CheckQuery): unknown, repeated or empty, or out of
// range, a 400 page naming it. Before, each was ignored or read as left
// out (?beforeSeq= and ?beforeSeq=0 showed the newest page, ?without=foo
// the run as recorded). without is given once for each part: the same
// part twice is a 400 naming without too.
func TestPageQueries(t *testing.T) {
	_, ts := seed(t, nil)
	for _, c := range []struct{ path, name string }{
		{"/ui/threads/ana-1?beforeSeq=", "beforeSeq"},
		{"/ui/threads/ana-1?beforeSeq=0", "beforeSeq"},
		{"/ui/threads/ana-1?beforeSeq=5&beforeSeq=6", "beforeSeq"},
		{"/ui/threads/ana-1?before=5", "before"},
		{"/ui/runs/run-1?without=", "without"},
		{"/ui/runs/run-1?without=foo", "without"},
		{"/ui/runs/run-1?with=recalled", "with"},
		// one part given twice: the API refuses a repeated parameter, and
		// the page replayed the run as if it was given once
		{"/ui/runs/run-1?without=recalled&without=recalled", "without"},
		{"/ui/runs/run-1?without=recalled&without=observations&without=recalled", "without"},
	} {
		code, body := get(t, ts.URL+c.path, "")
		_, detail, _ := strings.Cut(body, "<p>")
		if code != 400 || !strings.Contains(detail, c.name) {
			t.Errorf("%s: %d, want 400 and a page naming %s; got %.200q", c.path, code, c.name, detail)
		}
	}
	for _, path := range []string{"/ui/threads/ana-1?beforeSeq=5", "/ui/runs/run-1?without=recalled&without=observations"} {
		if code, body := get(t, ts.URL+path, ""); code != 200 {
			t.Errorf("%s: %d, want 200; got %.200q", path, code, body)
		}
	}
}
