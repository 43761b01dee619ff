package importer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mnemo-go/mnemo/engine"
)

// Formats Import understands.
const (
	FormatAuto        = "auto"
	FormatJSONL       = "jsonl"
	FormatLoCoMo      = "locomo"
	FormatLongMemEval = "longmemeval"
)

// ErrUnknownFormat is returned by Import and Detect when the format is not
// one of the Format constants or cannot be detected from the file.
var ErrUnknownFormat = errors.New("importer: unknown format")

// RecordError is a malformed record. Where is "line N" for JSONL or a
// JSON path for LoCoMo and LongMemEval; Field, when the engine refused one
// of the record's fields, names it as the file's record spells it ("role",
// "tool_call_id", "tool_calls[0].arguments" in JSONL; "text" in LoCoMo),
// and is "" otherwise; Err is the cause, a *engine.ValidationError (which
// wraps engine.ErrInvalidInput) when the engine refused the record. Its
// text is "importer: " + Record() + ": " + Reason().
type RecordError struct {
	// File names the file: Options.Name, else the path given to Import.
	File string
	// Where is "line N" (JSONL) or a JSON path (LoCoMo, LongMemEval).
	Where string
	// Field is the record's field the engine refused, as the file spells it; "" otherwise.
	Field string
	// Err is the cause.
	Err error
}

// Error implements error.
func (e *RecordError) Error() string { return "importer: " + e.Record() + ": " + e.Reason() }

// Record names the record: "FILE line 3", or "FILE at [0].conversation.session_1[4]".
func (e *RecordError) Record() string {
	if strings.HasPrefix(e.Where, "line ") {
		return e.File + " " + e.Where
	}
	return e.File + " at " + e.Where
}

// Reason says what is wrong with the record in the file's words: for a
// field the engine refused, "invalid FIELD: RULE" (invalid role: must be
// user, assistant or tool, got "x"), and for an id "FIELD RULE; got GOT"
// (thread must be …; got " " at byte 1), as the server and the engine
// word an id refusal; otherwise the cause's text.
func (e *RecordError) Reason() string {
	var ve *engine.ValidationError
	if e.Field != "" && errors.As(e.Err, &ve) {
		if ve.Got != "" {
			return e.Field + " " + ve.Rule + "; got " + ve.Got
		}
		return "invalid " + e.Field + ": " + ve.Rule
	}
	return strings.TrimPrefix(e.Err.Error(), "engine: ")
}

// Unwrap returns the cause: the parse error, or the engine's refusal (an
// *engine.ValidationError, engine.ErrConflict …).
func (e *RecordError) Unwrap() error { return e.Err }

// Options control Import. The zero value detects the format and skips
// malformed records.
type Options struct {
	// Format is one of the Format constants; "" means FormatAuto.
	Format string
	// Strict stops at the first malformed record instead of skipping it.
	Strict bool
	// Progress, when set, is called with bytes read so far and the file size.
	Progress func(read, total int64)
	// Name is what the report (Report.File) and every error call the file;
	// "" means the path. The CLI sets "stdin" for the temporary file it
	// spools standard input to, so no error names that file.
	Name string
}

// Report summarises the import of one file.
type Report struct {
	// File names the file: Options.Name, else the path given to Import.
	File string `json:"file"`
	// Format is the file's format, one of the Format constants.
	Format string `json:"format"`
	// Resources and Threads count the distinct resources and threads of
	// this file's messages that are stored, now or by an earlier import
	// (not those of skipped records); Resources counts the resource of a
	// working-memory state stored (now or before) too, as ExportReport
	// counts it, so a resource whose only line is its state counts.
	// `mnemo ingest` of several FILEs sums them per FILE: a thread in two
	// FILEs counts twice.
	Resources int `json:"resources"`
	// Threads counts the distinct threads (see Resources).
	Threads    int `json:"threads"`
	Messages   int `json:"messages"`   // messages stored now
	Duplicates int `json:"duplicates"` // messages already stored (same id, content and metadata)
	Skipped    int `json:"skipped"`    // malformed records left out (not the one a strict import stopped at)
	// Problems are the malformed records left out (Skipped of them), in file order.
	Problems []*RecordError `json:"-"`
	// Stopped is where a strict import stopped (the Where of the
	// *RecordError it returned), "" when it did not; that record is not
	// counted in Skipped.
	Stopped string `json:"stopped,omitempty"`
	// Error is, when the engine (or ctx) stopped the import part-way
	// (a quota, the database gone), its error's text; Stopped is then
	// the first record not stored, StoppedThread its thread and
	// NotStored how many messages of that thread's batch, from Stopped
	// on, were not stored (the records after the batch were not read).
	// "" and 0 when it did not stop so. The messages counted before
	// stay; importing the same file again stores only the rest (ids).
	Error string `json:"error,omitempty"`
	// StoppedThread is the thread of the record the engine stopped the
	// import at (see Error); "" when it did not.
	StoppedThread string `json:"stoppedThread,omitempty"`
	// NotStored counts the messages of StoppedThread's batch, from
	// Stopped on, that were not stored (see Error); 0 when it did not stop.
	NotStored int `json:"notStored,omitempty"`
	// Unstored counts the JSONL lines stored (now or before) whose
	// message does not hold all they said: a member chat APIs write that
	// mnemo has no field for ("annotations", "reasoning_content", …;
	// docs/cli.md, Import formats) gave a value other than null, "", [] or {}.
	// UnstoredMembers names those members, each once, in the order first
	// met; nil when Unstored is 0.
	Unstored int `json:"unstored"`
	// UnstoredMembers names the members (see Unstored).
	UnstoredMembers []string `json:"unstoredMembers,omitempty"`
	// WorkingMemory counts the "working_memory" lines whose state was
	// written now (a new version); WorkingMemorySame those whose state
	// was stored already, as given (no version written).
	WorkingMemory int `json:"workingMemory,omitempty"`
	// WorkingMemorySame counts the states stored already (see WorkingMemory).
	WorkingMemorySame int `json:"workingMemorySame,omitempty"`
	// Dispatches counts the "dispatch" lines whose dispatch was restored
	// now (engine.RestoreDispatch); DispatchesSame those stored already,
	// as given.
	Dispatches int `json:"dispatches,omitempty"`
	// DispatchesSame counts the dispatches stored already (see Dispatches).
	DispatchesSame int `json:"dispatchesSame,omitempty"`
	// Unpaired counts the tool messages stored (now or before) that
	// answer no call of their thread (engine.AppendResult.Unpaired): every
	// context leaves them out (memctx reason orphan-tool-result).
	Unpaired int `json:"unpaired,omitempty"`
	// UnpairedUnchecked counts the tool messages the engine did not check
	// for Unpaired (engine.AppendResult.UnpairedUnchecked).
	UnpairedUnchecked int `json:"unpairedUnchecked,omitempty"`
	// UnpairedEarlier counts those of Unpaired stored before this import
	// (records already stored: the same file ingested again); the rest
	// were stored by it.
	UnpairedEarlier int `json:"unpairedEarlier,omitempty"`
	// UnpairedFirst lists the first MaxUnpairedListed of Unpaired, in file
	// order.
	UnpairedFirst []UnpairedRecord `json:"-"`
}

// MaxUnpairedListed is how many unpaired tool messages a Report lists
// (Report.UnpairedFirst); all are counted.
const MaxUnpairedListed = 5

// UnpairedRecord is a record whose tool message answers no call of its
// thread (Report.Unpaired).
type UnpairedRecord struct {
	// Where is the record: "line N" (JSONL) or a JSON path.
	Where string
	// Thread is its thread.
	Thread string
	// Seq is its seq in Thread.
	Seq int64
	// ToolCallID is the call id it gave.
	ToolCallID string
	// Earlier is set when it was stored before this import (already
	// stored), not by it.
	Earlier bool
}

// Appender is what Import needs of an engine.
type Appender interface {
	Append(ctx context.Context, req engine.AppendRequest) (*engine.AppendResult, error)
}

// Import reads path in the given format and appends its conversations.
// A JSONL "working_memory" line is set through e when e is also a
// WorkingMemoryOpener (*engine.Engine is), and skipped with a reason
// otherwise; a "dispatch" line likewise through a DispatchRestorer. It opens path once: a pipe or FIFO (`<(cmd)`, /dev/stdin) is read
// whole, its head too when the format is detected. Errors: ErrUnknownFormat
// for a format it does not know or cannot detect; with Options.Strict the
// first malformed record's *RecordError; ErrNothingImported when every
// record was skipped; a path that is a directory; the file's open or read
// error; ctx's and the engine's (with the report so far).
func Import(ctx context.Context, e Appender, path string, opt Options) (*Report, error) {
	name := path
	if opt.Name != "" {
		name = opt.Name
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("importer: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("importer: %w", err)
	} else if fi.IsDir() {
		return nil, fmt.Errorf("importer: %s is a directory, not a file", name)
	}
	format, r := opt.Format, io.Reader(f)
	if format == "" || format == FormatAuto {
		if format, r, err = detectOpen(f, fi, path, name); err != nil {
			return nil, err
		}
	}
	if opt.Progress != nil {
		r = &progressReader{r: r, total: fi.Size(), fn: opt.Progress}
	}
	w := &writer{ctx: ctx, e: e, strict: opt.Strict, rep: &Report{File: name, Format: format}, resources: map[string]bool{}, threads: map[string]bool{}}
	switch format {
	case FormatJSONL:
		err = w.jsonl(r)
	case FormatLoCoMo:
		err = w.locomo(r)
	case FormatLongMemEval:
		err = w.longmemeval(r)
	default:
		return nil, fmt.Errorf("%w: %q (want jsonl, locomo or longmemeval)", ErrUnknownFormat, format)
	}
	w.rep.Resources, w.rep.Threads = len(w.resources), len(w.threads)
	if err == nil && w.rep.Messages+w.rep.Duplicates+w.rep.WorkingMemory+w.rep.WorkingMemorySame+w.rep.Dispatches+w.rep.DispatchesSame == 0 && w.rep.Skipped > 0 {
		err = nothingImported(w.rep.Skipped, name, format)
	}
	return w.rep, err
}

// nothingImported is the ErrNothingImported of a file whose skipped
// records were all it had, counted in the singular when there is one.
func nothingImported(skipped int, name, format string) error {
	if skipped == 1 {
		return fmt.Errorf("%w: the one record of %s was skipped, for the reason given above (when it is a parse error, the file may not be %s)", ErrNothingImported, name, format)
	}
	return fmt.Errorf("%w: all %d records of %s were skipped, each for the reason given above (when every reason is a parse error, the file may not be %s)", ErrNothingImported, skipped, name, format)
}

// ErrNothingImported is returned by Import when a file had records but every
// one was skipped: malformed (often the wrong format was given), or refused
// by the engine (another resource's thread, invalid text).
var ErrNothingImported = errors.New("importer: nothing imported")

// Detect guesses a file's format: ".jsonl"/".ndjson" is JSONL; a JSON array
// whose first element has "conversation" is LoCoMo, one with
// "haystack_sessions" is LongMemEval. Errors: ErrUnknownFormat (an empty
// file or array, a byte-order mark, neither JSONL nor a JSON array, a
// first element of neither shape), the file's open error.
func Detect(path string) (string, error) { return detect(path, path) }

// DetectAs is Detect of the file at path with its errors naming the file
// name: a copy of a pipe or of standard input, named as what it copies.
func DetectAs(path, name string) (string, error) { return detect(path, name) }

// detect is Detect with the name its errors give the file.
func detect(path, name string) (string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson":
		return FormatJSONL, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("importer: %w", err)
	}
	defer f.Close()
	return detectReader(f, name)
}

// detectOpen is detect on f, the open file of path (fi its information),
// and returns the reader of the whole file to import: f again from its
// start for a regular file, else (a pipe, which cannot be read twice) the
// bytes detection read followed by the rest of f.
func detectOpen(f *os.File, fi os.FileInfo, path, name string) (string, io.Reader, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson":
		return FormatJSONL, f, nil
	}
	if fi.Mode().IsRegular() {
		format, err := detectReader(f, name)
		if err == nil {
			_, err = f.Seek(0, io.SeekStart)
		}
		return format, f, err
	}
	var head bytes.Buffer
	format, err := detectReader(io.TeeReader(f, &head), name)
	return format, io.MultiReader(&head, f), err
}

// detectReader guesses the format of what r reads (Detect's rules but
// the extension's), reading its head.
func detectReader(r io.Reader, name string) (string, error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(1 << 20)
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return FormatJSONL, nil
	}
	if len(head) < 1<<20 && len(trimmed) == 0 {
		// Nothing but blanks (an empty pipe: a filter that matched
		// nothing): said so, not "neither JSONL nor a JSON array".
		return "", fmt.Errorf("%w: %s is empty", ErrUnknownFormat, name)
	}
	if len(trimmed) > 0 && trimmed[0] == '[' && bytes.Contains(head[:len(head)-len(trimmed)], []byte("\ufeff")) {
		// A JSON array is decoded whole, and encoding/json refuses the
		// mark: said so, not "neither JSONL nor a JSON array".
		return "", fmt.Errorf("%w: %s begins with a UTF-8 byte-order mark (EF BB BF) before its JSON array, which JSON does not allow: save it as UTF-8 without one", ErrUnknownFormat, name)
	}
	dec := json.NewDecoder(br)
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return "", fmt.Errorf("%w: %s is neither JSONL nor a JSON array", ErrUnknownFormat, name)
	}
	if !dec.More() {
		return "", fmt.Errorf("%w: %s is an empty JSON array: it holds no conversation", ErrUnknownFormat, name)
	}
	var first map[string]json.RawMessage
	if err := dec.Decode(&first); err != nil {
		return "", fmt.Errorf("%w: %s: first element: %v", ErrUnknownFormat, name, err)
	}
	switch {
	case first["conversation"] != nil:
		return FormatLoCoMo, nil
	case first["haystack_sessions"] != nil:
		return FormatLongMemEval, nil
	}
	return "", fmt.Errorf("%w: %s: a JSON array of neither LoCoMo nor LongMemEval records", ErrUnknownFormat, name)
}

type progressReader struct {
	r     io.Reader
	read  int64
	total int64
	fn    func(read, total int64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.read += int64(n)
	p.fn(p.read, p.total)
	return n, err
}

// writer appends thread batches and keeps the report.
type writer struct {
	ctx       context.Context
	e         Appender
	strict    bool
	rep       *Report
	resources map[string]bool
	threads   map[string]bool
}

// problem records a malformed record as skipped; under strict it is
// instead returned as the import's error, with the report's Stopped set.
func (w *writer) problem(where string, err error) error {
	re := &RecordError{File: w.rep.File, Where: where, Err: err}
	var ve *engine.ValidationError
	if errors.As(err, &ve) {
		re.Field = recordField(w.rep.Format, ve.Field)
	}
	if w.strict {
		w.rep.Stopped = where
		return re
	}
	w.rep.Skipped++
	w.rep.Problems = append(w.rep.Problems, re)
	return nil
}

// appendBatch stores one thread's messages; wheres names each message's
// record for error reports, and unstored (nil, or one entry a message)
// the members of unstoredMembers each record gave a value, counted in
// the report once the message is stored. When the batch is refused for a
// record's content, the records are appended one by one so only the bad
// ones are skipped (under strict the first bad one stops the import).
func (w *writer) appendBatch(req engine.AppendRequest, wheres []string, unstored [][]string) error {
	if len(req.Messages) == 0 {
		return nil
	}
	res, err := w.e.Append(w.ctx, req)
	if err == nil {
		w.count(req, res, wheres)
		for _, u := range unstored {
			w.noteUnstored(u)
		}
		return nil
	}
	var ve *engine.ValidationError
	if !errors.As(err, &ve) && !errors.Is(err, engine.ErrConflict) && !errors.Is(err, engine.ErrResourceMismatch) {
		return w.stop(req, wheres, 0, err)
	}
	if ve != nil && ve.Index < 0 || errors.Is(err, engine.ErrResourceMismatch) {
		// The whole batch is wrong (thread or resource id).
		for _, wh := range wheres {
			if perr := w.problem(wh, err); perr != nil {
				return perr
			}
		}
		return nil
	}
	for i, m := range req.Messages {
		one := req
		one.Messages = []engine.Message{m}
		res, err := w.e.Append(w.ctx, one)
		if err != nil {
			if errors.As(err, &ve) || errors.Is(err, engine.ErrConflict) || errors.Is(err, engine.ErrResourceMismatch) {
				if perr := w.problem(wheres[i], err); perr != nil {
					return perr
				}
				continue
			}
			return w.stop(req, wheres, i, err)
		}
		var where []string
		if i < len(wheres) {
			where = wheres[i : i+1]
		}
		w.count(one, res, where)
		if i < len(unstored) {
			w.noteUnstored(unstored[i])
		}
	}
	return nil
}

// stop records in the report that err, not a record's fault, stopped the
// import at req's i-th message (wheres[i]): Error, Stopped, StoppedThread
// and NotStored. It returns err.
func (w *writer) stop(req engine.AppendRequest, wheres []string, i int, err error) error {
	w.rep.Error = strings.TrimPrefix(err.Error(), "engine: ")
	if i < len(wheres) {
		w.rep.Stopped = wheres[i]
	}
	w.rep.StoppedThread, w.rep.NotStored = req.ThreadID, len(req.Messages)-i
	return err
}

// noteUnstored counts a stored record whose members (of unstoredMembers)
// gave values the message does not hold: Report.Unstored, and each name
// once in Report.UnstoredMembers. Nothing when members is empty.
func (w *writer) noteUnstored(members []string) {
	if len(members) == 0 {
		return
	}
	w.rep.Unstored++
	for _, m := range members {
		if !slices.Contains(w.rep.UnstoredMembers, m) {
			w.rep.UnstoredMembers = append(w.rep.UnstoredMembers, m)
		}
	}
}

// count adds the stored append res of req (wheres: each message's
// record) to the report.
func (w *writer) count(req engine.AppendRequest, res *engine.AppendResult, wheres []string) {
	w.resources[res.ResourceID] = true
	w.threads[req.ThreadID] = true
	w.rep.Messages += res.Stored
	w.rep.Duplicates += res.Duplicates
	w.rep.Unpaired += len(res.Unpaired)
	w.rep.UnpairedUnchecked += res.UnpairedUnchecked
	fresh := firstFreshSeq(res)
	for _, u := range res.Unpaired {
		if u.Seq < fresh {
			w.rep.UnpairedEarlier++
		}
		if len(w.rep.UnpairedFirst) == MaxUnpairedListed {
			break
		}
		where := ""
		if u.Index < len(wheres) {
			where = wheres[u.Index]
		}
		w.rep.UnpairedFirst = append(w.rep.UnpairedFirst, UnpairedRecord{Where: where, Thread: req.ThreadID, Seq: u.Seq, ToolCallID: u.ToolCallID, Earlier: u.Seq < fresh})
	}
}

// firstFreshSeq is the first seq res's append gave a message it stored:
// an append numbers the messages it stores after every stored one of the
// thread (res.Stored of them, ending at the largest of res.Seqs), and a
// message already stored keeps its seq, so a seq below it is a message
// stored before (engine.AppendResult.Duplicates). Past every seq when it
// stored none.
func firstFreshSeq(res *engine.AppendResult) int64 {
	var last int64
	for _, s := range res.Seqs {
		last = max(last, s)
	}
	return last - int64(res.Stored) + 1
}
