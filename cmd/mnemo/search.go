package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/jsonkey"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// searchHit is one hit of `mnemo search` output (rank order, range
// neighbours after their hit). Message is the stored message, as
// POST /v1/search's hits give it (`mnemo search --json`; a --queries
// line's hits have none).
type searchHit struct {
	ThreadID  string          `json:"threadId"`
	Seq       int64           `json:"seq"`
	MessageID string          `json:"messageId"`
	Message   *engine.Message `json:"message,omitempty"`
	Score     *float64        `json:"score"`
	Lexical   *float64        `json:"lexicalScore"`
	Vector    *float64        `json:"vectorScore"`
	Reason    string          `json:"reason"`
}

// searchQuery is one line of a --queries file.
type searchQuery struct {
	ID       string          `json:"id"`
	Resource string          `json:"resource"`
	Thread   string          `json:"thread,omitempty"`
	Query    string          `json:"query"`
	Filter   json.RawMessage `json:"filter,omitempty"`
	// At is when the question is asked (RFC 3339); absent: --at. The zero
	// time is refused (an unset time written out).
	At *time.Time `json:"at,omitempty"`
}

// unknownQueryField returns the quoted name of a field of the --queries
// line b (valid JSON) that searchQuery does not have, or names in another
// case ("Thread"), or "": a misspelt field ("thred") would otherwise be
// left out silently, widening the line's search to the whole resource,
// as POST /v1/search refuses it (encoding/json matches "Thread" to
// thread; the API's names are case-sensitive).
func unknownQueryField(b []byte) string {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var q searchQuery
	if name, ok := strings.CutPrefix(fmt.Sprint(dec.Decode(&q)), "json: unknown field "); ok {
		return name
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(b, &obj) == nil {
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if !slices.Contains(queryMembers, k) {
				return strconv.Quote(k)
			}
		}
	}
	return ""
}

// queryMembers are the members of a --queries line.
var queryMembers = []string{"id", "resource", "thread", "query", "filter", "at"}

// unknownQueryDetail words the unknown member quoted (as encoding/json
// quotes it) of a --queries line as a JSONL record's is worded: `unknown
// field "thred" (did you mean "thread"?)`, or with the members listed when
// none is close.
func unknownQueryDetail(quoted string) string {
	name, err := strconv.Unquote(quoted)
	if err != nil {
		name = quoted
	}
	if near := jsonkey.Closest(name, queryMembers); near != "" {
		return jsonkey.UnknownDetail(name, near)
	}
	return fmt.Sprintf("unknown field %q (a line has id, resource, thread, query, filter and at)", name)
}

// SearchCommand is `mnemo search`: hybrid search over a resource's memory (or
// --queries FILE.jsonl). Like every command it embeds Main: the process
// environment and the global flags.
type SearchCommand struct{ *Main }

// Run parses the flags of `mnemo search` from args and runs it: the
// flags checked (parseArgs), then the --queries file searched
// (searchBatch), or the QUERY, printed as JSON (searchJSON) or as a table
// (printSearch).
func (c *SearchCommand) Run(ctx context.Context, args []string) error {
	a, err := c.parseArgs(args)
	if err != nil {
		return err
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.CloseContext(ctx)
	if a.queries != "" {
		return c.searchBatch(ctx, e, a.queries, *a.opts, a.at, a.scopeGiven)
	}
	req := engine.SearchRequest{ResourceID: a.resource, ThreadID: a.thread, Query: a.query, Options: *a.opts, At: a.at}
	if a.asJSON {
		return c.searchJSON(ctx, e, req)
	}
	return c.printSearch(ctx, e, req)
}

// searchArgs is what `mnemo search` was asked, its flags checked.
type searchArgs struct {
	resource, thread string          // --resource, --thread
	queries          string          // --queries FILE.jsonl, "" for a QUERY
	query            string          // the QUERY: the arguments, joined by spaces
	asJSON           bool            // --json
	opts             *recall.Options // the recall flags'; ScopeThread with --thread
	at               time.Time       // --at, zero for now
	scopeGiven       bool            // --scope was given
}

// parseArgs parses the flags of `mnemo search` from args and checks them:
// a value error for a recall flag's value, a usage error for what is
// missing or does not go together (a QUERY and --queries, --thread and
// --scope resource).
func (c *SearchCommand) parseArgs(args []string) (searchArgs, error) {
	fs := c.flags("search", "(--resource R QUERY | --queries FILE.jsonl)")
	resource := fs.String("resource", "", "resource to search (required unless --queries)")
	thread := fs.String("thread", "", "search this thread only (--scope thread; a --queries line's thread likewise, unless --scope resource)")
	queries := fs.String("queries", "", "JSONL file of {id, resource, thread?, query, filter?, at?}: one JSON line of hits per query")
	asJSON := fs.Bool("json", false, "print JSON")
	rf := addRecallFlags(fs, fmt.Sprintf("hits before range expansion (0: the default, %d)", recall.DefaultTopK))
	if err := parse(fs, args); err != nil {
		return searchArgs{}, err
	}
	if rf.topK == 0 {
		rf.topK = recall.DefaultTopK
	}
	opts, err := rf.options()
	if err != nil {
		return searchArgs{}, c.valuef(fs, "%v", err)
	}
	at, err := rf.queryTime()
	if err != nil {
		return searchArgs{}, c.valuef(fs, "%v", err)
	}
	a := searchArgs{resource: *resource, thread: *thread, queries: *queries, query: strings.Join(fs.Args(), " "),
		asJSON: *asJSON, opts: opts, at: at, scopeGiven: flagGiven(fs, "scope")}
	if err := c.checkArgs(fs, a); err != nil {
		return searchArgs{}, err
	}
	if a.thread != "" {
		a.opts.Scope = recall.ScopeThread // --thread T means the search of thread T, as memory_search's threadId does
	}
	return a, nil
}

// checkArgs checks a, parsed from fs: the ids given, and a QUERY with
// --resource (and --thread for --scope thread), or --queries alone.
func (c *SearchCommand) checkArgs(fs *flag.FlagSet, a searchArgs) error {
	need := "" // --queries takes each line's resource
	if a.queries == "" {
		need = "search needs --resource and a QUERY, or --queries FILE"
	}
	if err := c.checkNeededIDs(fs, need, "--resource", a.resource); err != nil {
		return err // first: --resource "" is empty, not missing
	}
	if err := c.checkIDs(fs, "--thread", a.thread); err != nil {
		return err
	}
	if err := c.checkGiven(fs, append([]string{"--queries", "a FILE.jsonl"}, givenRecallFlags...)...); err != nil {
		return err
	}
	switch {
	case a.queries == "" && (a.resource == "" || fs.NArg() == 0):
		return c.usagef(fs, "%s", need)
	case a.queries == "" && strings.TrimSpace(a.query) == "":
		return c.usagef(fs, "the QUERY is empty")
	case a.queries == "" && a.opts.Scope == recall.ScopeThread && a.thread == "":
		return c.usagef(fs, "--scope thread needs --thread")
	case a.queries != "" && (a.thread != "" || a.resource != ""):
		return c.usagef(fs, "--queries takes each line's resource and thread: leave --resource and --thread out")
	case a.thread != "" && a.scopeGiven && a.opts.Scope != recall.ScopeThread:
		return c.usagef(fs, "--thread confines the search to a thread, --scope %s searches the whole resource: leave one out", a.opts.Scope)
	}
	return nil
}

// printSearch prints the hits of req as a table: how each channel
// retrieved, the legend of the scores, then the hits, with a hint when
// the indexes lag and a note when the scope holds nothing.
func (c *SearchCommand) printSearch(ctx context.Context, e *engine.Engine, req engine.SearchRequest) error {
	// Each preview is written from the first characters of its message
	// (SearchPreviews): a search of --top-k 1000 over messages of 200 KB
	// read 120 MB to show 1000 previews of a line each, and refused past
	// limits.maxAnswerBytes when it read them through SearchMessages.
	res, err := e.SearchPreviews(ctx, req)
	if err != nil {
		return err
	}
	hits, text := shownHits(res.Hits)
	r := retrievalOf(res.Retrieval)
	fmt.Fprintf(c.Stdout, "retrieval: lexical %s · vector %s", r.Lexical, r.Vector)
	if r.Embedder != "" {
		// No embedder ran in lexical mode: say nothing rather than "embedder ".
		fmt.Fprintf(c.Stdout, " · embedder %s", r.Embedder)
	}
	fmt.Fprintln(c.Stdout)
	if r.Note != "" {
		fmt.Fprintf(c.Stdout, "note: %s\n", r.Note)
	}
	printLegend(c.Stdout, searchScores(req.Options, e.RecallTuning(), r, hits).legend(hitScores(hits))...)
	catchUpHint(c.Stderr, "search", c.target(), r.Lexical, r.Vector)
	if err := printHits(c.Stdout, hits, text, req.Options.MessageRange != recall.Range{}); err != nil {
		return err
	}
	c.noteEmptyScope(ctx, e, "", len(hits), req.ResourceID, req.ThreadID)
	return nil
}

// searchJSON prints the hits of req as JSON, each with its message, as
// /v1/search and memory_search give it (readme57: the ids and scores
// alone, where the table has a preview). Past limits.maxAnswerBytes the
// hits are printed with their ids and scores alone, as before the
// messages were added, and a note on standard error names the bound and
// --top-k and --range: a search that answered then still answers.
func (c *SearchCommand) searchJSON(ctx context.Context, e *engine.Engine, req engine.SearchRequest) error {
	res, err := e.SearchMessages(ctx, req)
	if errors.Is(err, engine.ErrAnswerTooLarge) {
		ids, serr := e.Search(ctx, req)
		if serr != nil {
			return serr
		}
		if err := c.printJSON(map[string]any{"hits": rankOrder(ids.Hits), "retrieval": ids.Retrieval}); err != nil {
			return err
		}
		fmt.Fprintf(c.Stderr, "mnemo search: note: the hits are printed without their messages: %v\n", answerFlagError(err, ""))
		return nil
	}
	if err != nil {
		return err
	}
	if err := c.printJSON(map[string]any{"hits": withMessages(res.Hits), "retrieval": res.Retrieval}); err != nil {
		return err
	}
	c.noteEmptyScope(ctx, e, "", len(res.Hits), req.ResourceID, req.ThreadID)
	return nil
}

// noteEmptyScope says on standard error, after a search of no hits (and
// where, a --queries line's "FILE:LINE (ID): " or ""), when its resource
// or thread holds no message (emptyScope).
func (c *SearchCommand) noteEmptyScope(ctx context.Context, e *engine.Engine, where string, hits int, resource, thread string) {
	if hits > 0 {
		return
	}
	if why := emptyScope(ctx, e, c.target(), resource, thread); why != "" {
		fmt.Fprintf(c.Stderr, "mnemo search: note: %s%s\n", where, why)
	}
}

// shownHits returns the hits of SearchPreviews (in rank order, range
// neighbours after their hit) as printHits shows them, with each one's
// preview by message id.
func shownHits(hs []engine.PreviewHit) ([]searchHit, map[string]string) {
	out := make([]searchHit, len(hs))
	text := make(map[string]string, len(hs))
	for i, h := range hs {
		out[i] = searchHit{ThreadID: h.ThreadID, Seq: h.Seq, MessageID: h.MessageID, Score: h.Score, Lexical: h.Lexical, Vector: h.Vector, Reason: h.Reason}
		text[h.MessageID] = h.Preview
	}
	return out, text
}

// retrievalOf is the recall.Retrieval of a SearchResult's retrieval (the
// journal's copy of it, the same fields).
func retrievalOf(r journal.Retrieval) recall.Retrieval {
	out := recall.Retrieval{Lexical: r.Lexical, Vector: r.Vector, Embedder: r.Embedder, Note: r.Note}
	if rr := r.Rerank; rr != nil {
		out.Rerank = &recall.RerankStatus{Reranker: rr.Reranker, Status: rr.Status, Candidates: rr.Candidates, Millis: rr.Millis}
	}
	return out
}

// hitScores is what printHits shows of hits' scores: a number or "-" in
// each of the score, lexical and vector columns.
func hitScores(hits []searchHit) shownScores {
	var sh shownScores
	for _, h := range hits {
		sh.score = sh.score || h.Score != nil
		sh.lexical = sh.lexical || h.Lexical != nil
		sh.vector = sh.vector || h.Vector != nil
		sh.dash = sh.dash || h.Score == nil || h.Lexical == nil || h.Vector == nil
	}
	return sh
}

// printHits writes hits as a table with each one's preview (text, by
// message id). The reason column (hit or range, as --json says) is there
// only when withRange: without --range every row is a hit.
func printHits(w io.Writer, hits []searchHit, text map[string]string, withRange bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	reason := func(s string) string {
		if withRange {
			return s + "\t"
		}
		return ""
	}
	fmt.Fprintln(tw, reason("reason")+"thread\tseq\tscore\tlexical\tvector\tpreview")
	for _, h := range hits {
		fmt.Fprintf(tw, "%s%s\t%d\t%s\t%s\t%s\t%s\n", reason(h.Reason), h.ThreadID, h.Seq, num(h.Score), num(h.Lexical), num(h.Vector), text[h.MessageID])
	}
	return tw.Flush()
}

// searchBatch answers each line of a JSONL file with one JSON line.
// A line's thread confines its search to the thread, as --thread does,
// unless --scope was given. Each line is read (a byte-order mark before
// the first and blank lines passed over), parsed and checked
// (parseQueryLine), searched (searchQuery.request) and answered; the
// first line refused or failing ends the batch with an error naming
// PATH:LINE.
func (c *SearchCommand) searchBatch(ctx context.Context, e *engine.Engine, path string, opts recall.Options, at time.Time, scopeGiven bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	enc := json.NewEncoder(c.Stdout)
	enc.SetEscapeHTML(false) // a line's id as given: "q<1>&", not "q\u003c1\u003e\u0026"
	for line := 1; sc.Scan(); line++ {
		b := sc.Bytes()
		lead := 0 // bytes before b on the file's line
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\uFEFF")) // a UTF-8 byte-order mark, as mnemo ingest reads JSONL
			lead = len(sc.Bytes()) - len(b)
		}
		if len(bytes.Trim(b, " \t\r")) == 0 {
			// Blank: JSON whitespace only, as mnemo ingest reads a JSONL
			// line (b5fbfd6). A line of \v, U+0085 or U+00A0, which
			// bytes.TrimSpace passed over, is not JSON: refused below.
			continue
		}
		q, err := parseQueryLine(b, lead)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		res, err := e.Search(ctx, q.request(opts, at, scopeGiven))
		if err != nil {
			return fmt.Errorf("%s:%d (%s): %w", path, line, q.ID, err)
		}
		answer := struct {
			ID   string      `json:"id"`
			Hits []searchHit `json:"hits"`
		}{q.ID, rankOrder(res.Hits)}
		if err := enc.Encode(answer); err != nil {
			return err
		}
		c.noteEmptyScope(ctx, e, fmt.Sprintf("%s:%d (%s): ", path, line, q.ID), len(res.Hits), q.Resource, q.Thread)
	}
	return sc.Err()
}

// parseQueryLine parses b, a line of a --queries file that is not blank
// (lead: the bytes before it on the file's line, a byte-order mark), into
// its query, checked: the error names the member at fault (given twice,
// unknown, missing, white space only, a zero or malformed at) or the
// column of malformed JSON.
func parseQueryLine(b []byte, lead int) (*searchQuery, error) {
	if name, _, ok := jsonkey.Repeated(b); ok {
		// encoding/json keeps the last: {"resource":"a","resource":"b"}
		// searched b, where an imported line or a request body is refused.
		return nil, fmt.Errorf("%q is given twice in one object; give each member once", name)
	}
	var q searchQuery
	if err := json.Unmarshal(b, &q); err != nil {
		return nil, queryJSONError(b, lead, err)
	}
	if name := unknownQueryField(b); name != "" {
		return nil, errors.New(unknownQueryDetail(name))
	}
	if q.Resource == "" || q.Query == "" {
		return nil, errors.New("resource and query are required")
	}
	if strings.TrimSpace(q.Query) == "" {
		// As `mnemo search "  "` and POST /v1/search refuse it: no term
		// to match, and the vector channel ranked every turn a hit.
		return nil, errors.New("query is white space only: give the words to search for")
	}
	if q.At != nil && q.At.IsZero() {
		return nil, errors.New("at: the zero time (0001-01-01T00:00:00Z) is no time anyone meant: leave at out for --at or now")
	}
	return &q, nil
}

// queryJSONError is the error of json.Unmarshal of b, a --queries line
// (lead: the bytes before it on the file's line): malformed JSON at its
// 1-based column, a member of the wrong type, or an at that is no RFC
// 3339 time.
func queryJSONError(b []byte, lead int, err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	if !errors.As(err, &te) && !errors.As(err, &se) {
		// json reports a failing UnmarshalJSON without its place:
		// at is the line's one field that has its own.
		return fmt.Errorf("at: want an RFC 3339 time string (2023-05-08T14:00:00Z): %w", err)
	}
	if se != nil {
		// "q.jsonl:2: malformed JSON at column 14: invalid
		// character 'x' …": 1-based, as mnemo ingest names a JSONL
		// line's place (jsonkey: a JSONL line's bytes are columns),
		// and "invalid character '\u00a0' (U+00A0)" where
		// encoding/json says 'Â', as mnemo ingest does.
		return fmt.Errorf("malformed JSON at column %d: %w", lead+int(jsonkey.SyntaxOffset(se))+1, jsonkey.NamedSyntax(b, se))
	}
	return queryTypeError(te)
}

// queryTypeError words te, a --queries line's member (or the line) of
// the wrong JSON type, as POST /v1/search does: `"query" must be a JSON
// string, not a number`, `the line must be a JSON object, not an array`
// (it said encoding/json's "cannot unmarshal number into Go struct field
// searchQuery.query of type string", readme68 F8).
func queryTypeError(te *json.UnmarshalTypeError) error {
	got := te.Value
	switch {
	case strings.HasPrefix(got, "number"):
		got = "a number"
	case got == "bool":
		got = "a boolean"
	case got == "array" || got == "object":
		got = "an " + got
	default:
		got = "a " + got
	}
	if te.Field == "" {
		return fmt.Errorf("the line must be a JSON object, not %s", got)
	}
	return fmt.Errorf("%q must be a JSON string, not %s", te.Field, got)
}

// request is the search q asks: opts with q's filter, confined to q's
// thread unless --scope was given (scopeGiven), asked at q's time, else
// at (--at).
func (q *searchQuery) request(opts recall.Options, at time.Time, scopeGiven bool) engine.SearchRequest {
	if q.Thread != "" && !scopeGiven {
		opts.Scope = recall.ScopeThread
	}
	if len(q.Filter) > 0 {
		opts.Filter = q.Filter
	}
	if q.At != nil {
		at = *q.At
	}
	return engine.SearchRequest{ResourceID: q.Resource, ThreadID: q.Thread, Query: q.Query, Options: opts, At: at}
}

// withMessages is hits of SearchMessages (in rank order, range
// neighbours after their hit) as `mnemo search --json` prints them: the
// ids and scores of a --queries line's hits, and the message.
func withMessages(hs []engine.SearchHit) []searchHit {
	out := make([]searchHit, len(hs))
	for i := range hs {
		h := &hs[i]
		out[i] = searchHit{ThreadID: h.Message.ThreadID, Seq: h.Message.Seq, MessageID: h.Message.ID, Message: &h.Message,
			Score: h.Score, Lexical: h.Lexical, Vector: h.Vector, Reason: h.Reason}
	}
	return out
}

// rankOrder returns hits in rank order, each followed by its range
// neighbours.
func rankOrder(hs []recall.Hit) []searchHit {
	hs = append([]recall.Hit(nil), hs...)
	recall.SortByRank(hs)
	out := make([]searchHit, len(hs))
	for i, h := range hs {
		out[i] = searchHit{ThreadID: h.ThreadID, Seq: h.Seq, MessageID: h.MessageID, Lexical: h.Lexical, Vector: h.Vector, Reason: h.Reason}
		if h.Reason == recall.ReasonHit {
			s := h.Score
			out[i].Score = &s
		}
	}
	return out
}

func num(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *p)
}
