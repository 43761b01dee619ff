package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/jsonkey"
	"github.com/mnemo-go/mnemo/working"
)

// wmRunID is the run id recorded in the history of a version written by
// `mnemo wm set`, so operator edits stand out from the model's.
const wmRunID = engine.RunIDWMSet

// wmUsage is the usage of `mnemo wm`.
const wmUsage = `usage:
  mnemo [--dir DIR | --db URL] wm get     (--thread T | --resource R) [--json | --raw]
  mnemo [--dir DIR | --db URL] wm history (--thread T | --resource R) [--limit N] [--json]
  mnemo [--dir DIR | --db URL] wm set     (--thread T | --resource R) [--schema SCHEMA.json | --markdown] FILE

get prints the current working memory (--raw: its content alone, as stored, for
set to read back byte for byte; exit 1 when none is stored), history its
versions (newest first, with run id and tool call id), set replaces it with
FILE ("-" reads stdin; an empty FILE is refused). In
schema mode set validates FILE against --schema (or, without it, only checks
that FILE is a JSON object). The mode is the configured working memory's
(mnemo.json, serve --config), else --schema's or --markdown's, else the
existing state's; a state written in the other mode, before the
configuration changed, is shown as it is (get notes it) and set replaces
it as the next version (history shows both). A thread's
state belongs to the thread's resource: --thread needs a thread that has
messages (append or ingest first; else "thread not found"), and
DeleteResource erases it. --resource may name a resource with no threads
yet (set notes it): its threads' contexts show the state once it has some.
`

// WMCommand is `mnemo wm`: working memory: get, history, set (--thread T |
// --resource R). Like every command it embeds Main: the process environment
// and the global flags.
type WMCommand struct{ *Main }

// Run dispatches `mnemo wm get|history|set`.
func (c *WMCommand) Run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprintf(c.Stderr, "mnemo wm: needs a subcommand: get, history or set\n%s", wmUsage)
		return errUsage
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(c.Stdout, wmUsage)
		return flag.ErrHelp
	}
	switch args[0] {
	case "get", "history", "set":
		return c.runSub(ctx, args[0], args[1:])
	default:
		fmt.Fprintf(c.Stderr, "mnemo wm: unknown subcommand %q\n%s", args[0], wmUsage)
		return errUsage
	}
}

// wmFlags are the flags of one wm subcommand (raw only for get; limit only
// for history; schema, markdown and no-validate only for set).
type wmFlags struct {
	thread, resource, schemaFile      *string
	asJSON, raw, markdown, noValidate *bool
	limit                             *int
}

// parseSub parses the flags of `mnemo wm sub` and checks their rules.
func (c *WMCommand) parseSub(sub string, args []string) (*flag.FlagSet, *wmFlags, error) {
	argsHelp := "(--thread T | --resource R)"
	if sub == "set" {
		argsHelp += " FILE"
	}
	fs := c.flags("wm "+sub, argsHelp)
	f := &wmFlags{
		thread:   fs.String("thread", "", "the thread's working memory (thread scope)"),
		resource: fs.String("resource", "", "the resource's working memory (resource scope)"),
		asJSON:   fs.Bool("json", false, "print JSON"),
		// Each subcommand has its own flags: wm get -h lists only get's.
		raw: new(bool), limit: new(int), schemaFile: new(string), markdown: new(bool), noValidate: new(bool),
	}
	switch sub {
	case "get":
		fs.BoolVar(f.raw, "raw", false, "print the content alone, as stored (no header, no newline added; control characters escaped only on a terminal), for wm set to read back")
	case "history":
		fs.IntVar(f.limit, "limit", 0, "at most this many versions (0: all)")
	case "set":
		fs.StringVar(f.schemaFile, "schema", "", "validate against this JSON Schema file (schema mode; default: the data directory's configured schema)")
		fs.BoolVar(f.markdown, "markdown", false, "the state is a markdown document (template mode)")
		fs.BoolVar(f.noValidate, "no-validate", false, "store a schema-mode state without --schema, checking only that it is a JSON object (the schema is the application's and is not stored)")
	}
	if err := parse(fs, args); err != nil {
		return fs, nil, err
	}
	need := "wm " + sub + " needs exactly one of --thread and --resource"
	if err := c.checkNeededIDs(fs, need, "--thread", *f.thread, "--resource", *f.resource); err != nil {
		return fs, nil, err // first: --thread "" is empty, not missing
	}
	if sub == "set" {
		// A state is new data filed under the id (engine.ValidNewID, as
		// PUT …/working-memory refuses it); a stored one is still read.
		for _, id := range []struct{ flag, v string }{{"--thread", *f.thread}, {"--resource", *f.resource}} {
			if id.v != "" && !engine.ValidNewID(id.v) {
				why := `"." or ".." (no URL can name them)`
				if strings.HasPrefix(id.v, engine.TombstonePrefix) {
					why = `an id beginning with "` + engine.TombstonePrefix + `" (reserved for erased owners)`
				}
				return fs, nil, c.valuef(fs, `%s %q: no working memory is written under %s; wm get and wm history still read a stored one`, id.flag, id.v, why)
			}
		}
	}
	if err := c.checkGiven(fs, "--schema", "a JSON Schema file (left out, the configured schema)"); err != nil {
		return fs, nil, err
	}
	switch {
	case *f.limit < 0:
		return fs, nil, c.valuef(fs, "--limit must be >= 0 (0: all versions)")
	case (*f.thread == "") == (*f.resource == ""):
		return fs, nil, c.usagef(fs, "%s", need)
	}
	switch {
	case sub == "set" && fs.NArg() != 1:
		return fs, nil, c.usagef(fs, "wm set needs one FILE (or - for stdin)")
	case sub == "set" && fs.Arg(0) == "":
		return fs, nil, c.valuef(fs, "FILE is empty: give the file holding the new state, or - for standard input")
	case sub != "set" && fs.NArg() != 0:
		return fs, nil, c.noArgs(fs, "")
	case *f.schemaFile != "" && *f.markdown:
		return fs, nil, c.usagef(fs, "--schema and --markdown exclude each other")
	case *f.raw && *f.asJSON:
		return fs, nil, c.usagef(fs, "--raw and --json exclude each other")
	}
	return fs, f, nil
}

// runSub runs `mnemo wm get|history|set`: it resolves the working memory
// of the key (the stored configuration, else the mode the flags or the
// stored state give: memoryByMode) and hands it to do.
func (c *WMCommand) runSub(ctx context.Context, sub string, args []string) error {
	fs, f, err := c.parseSub(sub, args)
	if err != nil {
		return err
	}
	thread, resource, schemaFile, markdown := f.thread, f.resource, f.schemaFile, f.markdown
	cfg := working.Config{Scope: working.ScopeThread}
	key := working.ThreadKey(*thread)
	if *resource != "" {
		cfg.Scope, key = working.ScopeResource, working.ResourceKey(*resource)
	}
	if _, _, err := working.ParseKey(key); err != nil {
		return err
	}

	c.wmSet = sub == "set"
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.CloseContext(ctx)
	if *thread != "" {
		// As the API (404) and mnemo messages: a thread that does not
		// exist has no state to show, and none may be written for it.
		if _, err := e.GetThread(ctx, *thread); err != nil {
			return err
		}
	}
	// The working-memory configuration stored with the states (by mnemo
	// serve --config or an application's engine.Config.WorkingMemory)
	// renders and validates as the server and the application do,
	// unless --schema or --markdown say otherwise.
	mem, err := e.WorkingMemory()
	if err := c.storedDamage(sub, err); err != nil {
		return err
	}
	if err != nil || *schemaFile != "" || *markdown || mem.Scope() != cfg.Scope {
		mem = nil
	}
	if mem == nil {
		var said bool
		if mem, said, err = c.memoryByMode(ctx, e, fs, sub, f, key, &cfg); err != nil || said {
			return err
		}
	}
	if err := c.do(ctx, sub, mem, key, fs.Arg(0), cfg.Mode == working.ModeSchema && *schemaFile == "", *f.limit, *f.asJSON, *f.raw); err != nil {
		return err
	}
	if sub == "set" && *resource != "" {
		c.noteNoThreads(ctx, e, *resource)
	}
	return nil
}

// memoryByMode opens the working memory of key in the mode that --schema
// or --markdown give, else the stored state's, else, for wm set, that of
// --no-validate; cfg (its scope set) gets the mode and schema. said
// reports that wm get or history said instead that key holds no state
// (noState), mem then nil. A value error (fs) names the flag wm set needs
// or the one that does not fit the stored state.
func (c *WMCommand) memoryByMode(ctx context.Context, e *engine.Engine, fs *flag.FlagSet, sub string, f *wmFlags, key string, cfg *working.Config) (mem *working.Memory, said bool, err error) {
	stored, isStored, err := e.StoredWorkingMode(ctx, key)
	if err != nil {
		return nil, false, err
	}
	switch {
	case *f.schemaFile != "":
		raw, err := readSchema(*f.schemaFile)
		if err != nil {
			return nil, false, err
		}
		cfg.Mode, cfg.Schema = working.ModeSchema, raw
	case *f.markdown:
		cfg.Mode = working.ModeTemplate
	case isStored:
		cfg.Mode = stored
		if sub == "set" && stored == working.ModeSchema && !*f.noValidate {
			return nil, false, c.valuef(fs, "%s holds a schema-mode state: give --schema SCHEMA.json to validate the new state, or --no-validate", key)
		}
		if sub == "set" && stored == working.ModeTemplate && *f.noValidate {
			return nil, false, c.valuef(fs, "%s holds a template-mode (markdown) state: --no-validate is for schema-mode states; say --markdown", key)
		}
	case sub == "set" && *f.noValidate:
		cfg.Mode = working.ModeSchema // the first state: a JSON object, shape checked only
	case sub == "set":
		return nil, false, c.valuef(fs, "%s has no working memory yet: say --schema SCHEMA.json, --no-validate (a JSON object) or --markdown", key)
	default:
		return nil, true, c.noState(sub, key, f)
	}
	if cfg.Mode == working.ModeSchema && len(cfg.Schema) == 0 {
		cfg.Schema = json.RawMessage(`{"type":"object"}`) // no schema at hand: check the shape only
	}
	mem, err = e.OpenWorkingMemory(*cfg)
	return mem, false, err
}

// readSchema reads the JSON Schema file path of wm --schema, bounded
// (readConfigFile: /dev/zero was read until memory ran out): an error
// "read schema: …", or "invalid schema: PATH: …" for a file that is not
// JSON text (a byte-order mark was "invalid character 'ï'") or not one
// JSON value.
func readSchema(path string) (json.RawMessage, error) {
	raw, err := readConfigFile(path)
	if err != nil {
		return nil, fmt.Errorf("read schema: %w", err)
	}
	if err := jsonkey.Text(raw); err != nil {
		return nil, fmt.Errorf("invalid schema: %s: %w", path, err)
	}
	if detail := jsonFileSyntax(raw, "a JSON Schema object"); detail != "" {
		return nil, fmt.Errorf("invalid schema: %s: %s", path, detail)
	}
	return raw, nil
}

// noState is wm get's or history's answer for key holding no state: with
// --json an empty history or an unstored version 0, with --raw an error
// (no content to write: the exit status says so), else a line saying so.
func (c *WMCommand) noState(sub, key string, f *wmFlags) error {
	if sub == "history" && *f.asJSON {
		return c.printHistory(nil, true) // [], as a key with versions gives a list
	}
	if *f.asJSON {
		return c.printJSON(map[string]any{"key": key, "version": 0, "stored": false})
	}
	if *f.raw {
		return fmt.Errorf("%s: no working memory stored", key)
	}
	fmt.Fprintf(c.Stdout, "%s: no working memory stored\n", key)
	return nil
}

// storedDamage is wm set's refusal when err, the engine's WorkingMemory
// error, is engine.ErrStoredWorkingMemory (the configuration stored in
// the database does not build: a newer build's, or damaged): that error
// as mnemo context gives it, naming the configuration and how to replace
// it. Written around it, a state skipped the configured bounds and mode
// (walk41 #6: a JSON file over a template state was stored as markdown).
// get and history read the states as stored, saying on standard error
// that the configuration does not build; nil for them and any other err.
func (c *WMCommand) storedDamage(sub string, err error) error {
	if !errors.Is(err, engine.ErrStoredWorkingMemory) {
		return nil
	}
	if sub == "set" {
		return err
	}
	fmt.Fprintf(c.Stderr, "mnemo wm %s: note: %s; %s reads the stored states as they are, without it (wm set is refused until it is replaced)\n",
		sub, withoutPackages(err.Error()), sub)
	return nil
}

// noteNoThreads says on standard error when resource, whose state wm set
// just stored, has no thread: a resource exists only by its threads, and
// its state may be set before its first one (as PUT
// /v1/resources/{resource}/working-memory may), which that thread's
// contexts then show; but a mistyped id stores it where no context reads
// it, silently before.
func (c *WMCommand) noteNoThreads(ctx context.Context, e *engine.Engine, resource string) {
	p, err := e.ThreadsPage(ctx, engine.ThreadsRequest{Resources: []string{resource}, Limit: 1})
	if err == nil && len(p.Threads) == 0 {
		fmt.Fprintf(c.Stderr, "mnemo wm set: note: resource %q has no threads yet: its state is shown to the contexts of its threads once it has some; if you meant a stored resource, check the id: to list them, run: %s\n", resource, c.target().threadsCmd(""))
	}
}

// do runs get (raw: the content alone), history or set (of file;
// unchecked: only its JSON shape is checked) on key's working memory mem
// and prints the result.
func (c *WMCommand) do(ctx context.Context, sub string, mem *working.Memory, key, file string, unchecked bool, limit int, asJSON, raw bool) error {
	switch sub {
	case "get":
		st, err := mem.Get(ctx, key)
		if err != nil {
			return err
		}
		if mem.Foreign(st) {
			fmt.Fprintf(c.Stderr, "mnemo wm get: note: %s was written in %s mode and the working memory is in %s mode now: contexts show it as it is until wm set, the API or the model's update replaces it with a %s-mode state\n",
				key, st.Mode, mem.Mode(), mem.Mode())
		}
		if raw {
			return c.printRaw(st)
		}
		return c.printState(st, asJSON)
	case "history":
		h, err := mem.History(ctx, key, limit)
		if err != nil {
			return err
		}
		return c.printHistory(h, asJSON)
	default:
		content, err := c.readFile(file)
		if err != nil {
			return err
		}
		if content == "" {
			return fmt.Errorf("%s is empty: nothing to store (wm get --raw writes nothing, and fails, when no working memory is stored)", file)
		}
		if mem.Mode() == working.ModeSchema {
			if err := jsonkey.Text([]byte(content)); err != nil {
				return fmt.Errorf("%s: %w", file, err) // a byte-order mark was "invalid character 'ï'"
			}
			if detail := jsonFileSyntax([]byte(content), "a JSON object"); detail != "" {
				// "invalid update: not valid JSON: invalid character '}'
				// …" named neither the file nor the place.
				return fmt.Errorf("%s: %s", file, detail)
			}
		} else if strings.HasPrefix(content, "\uFEFF") {
			// Stored, the mark was an invisible first character of every
			// context's working memory, and a template's search/replace
			// of the first line did not find it.
			return fmt.Errorf("%s: the file begins with a UTF-8 byte-order mark (EF BB BF), which would be stored as the state's first character: save it as UTF-8 without one", file)
		}
		if unchecked {
			fmt.Fprintln(c.Stderr, "mnemo wm set: no --schema given: only checked that the file is a JSON object")
		}
		r, err := mem.Set(ctx, key, content, working.Origin{RunID: wmRunID})
		if err != nil {
			return err
		}
		if !r.Changed {
			fmt.Fprintf(c.Stderr, "mnemo wm set: unchanged (version %d)\n", r.State.Version)
		} else {
			fmt.Fprintf(c.Stderr, "mnemo wm set: %s is now version %d\n", key, r.State.Version)
		}
		return c.printState(r.State, asJSON)
	}
}

// maxStateFileBytes bounds the file `mnemo wm set` reads: a state is at
// most maxChars characters (working.DefaultMaxChars, 8,000, by default),
// and a path such as /dev/zero was read until memory ran out.
const maxStateFileBytes = 4 << 20

func (c *WMCommand) readFile(name string) (string, error) {
	r := c.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return "", openStateError(name, err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxStateFileBytes+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", name, err)
	}
	if len(b) > maxStateFileBytes {
		return "", fmt.Errorf("%s is larger than %d bytes (a working-memory state is at most its maxChars, %d characters by default)", name, maxStateFileBytes, working.DefaultMaxChars)
	}
	return string(b), nil
}

// maxEchoedFileArg is the longest FILE argument an error of wm set quotes.
const maxEchoedFileArg = 64

// openStateError is the error of wm set's FILE argument name that could
// not be opened (err, os.Open's). The argument is quoted only when it
// reads as a file name (fileArg): text given where the file was meant,
// the state itself perhaps, secrets and all, is not echoed back, and the
// error says FILE names a file ("read my api key is sk-…: open my api key
// is sk-…: no such file or directory" it said).
func openStateError(name string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err // it names the file again
	}
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: no such file: wm set reads the new state from the file FILE names (- reads standard input: printf '%%s' \"$STATE\" | mnemo wm set … -)", fileArg(name))
	}
	return fmt.Errorf("read %s: %w", fileArg(name), err)
}

// fileArg names a FILE argument in an error: quoted (%q) when it reads as
// a file name (no space, no control character, and at most
// maxEchoedFileArg bytes or in a directory that exists) that the default
// redactor leaves as it is, else by its length alone: it is text, not a
// name, or a secret ("sk-proj-…", "password=hunter2", "api_key:X" were
// quoted back, walk48 F9).
func fileArg(name string) string {
	named := !strings.ContainsFunc(name, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
	if named && len(name) > maxEchoedFileArg {
		fi, err := os.Stat(filepath.Dir(name))
		named = err == nil && fi.IsDir() && strings.ContainsRune(name, filepath.Separator)
	}
	if named && readsAsSecret(name) {
		return fmt.Sprintf("FILE (an argument of %d characters holding what reads as a secret; redacted, not repeated here)", utf8.RuneCountInString(name))
	}
	if named {
		return fmt.Sprintf("FILE %q", name)
	}
	return fmt.Sprintf("FILE (an argument of %d characters that reads as text rather than a file name; not repeated here)", utf8.RuneCountInString(name))
}

// readsAsSecret reports whether the default redactor changes s, or would
// once a value after it had 4 characters: a credential's name with a value
// too short for the redactor to tell from a word ("api_key:X", "pwd=ab",
// which fileArg quoted back, fix52) is still one in a FILE argument, which
// is no prose.
func readsAsSecret(s string) bool {
	r := engine.DefaultRedactor()
	return r.Redact(s) != s || r.Redact(s+"0000") != s+"0000"
}

// wmJSON is the JSON form of a state or version: content as a JSON value
// in schema mode, as a string in template mode.
type wmJSON struct {
	Key        string          `json:"key"`
	Mode       working.Mode    `json:"mode,omitempty"`
	Version    int64           `json:"version"`
	Content    json.RawMessage `json:"content"`
	RunID      string          `json:"runId,omitempty"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	UpdatedAt  *time.Time      `json:"updatedAt,omitempty"`
}

// wmContentJSON is content for wmJSON: a JSON object as it is stored,
// other text as a JSON string written as the user wrote it, "<", ">" and
// "&" included (jsonkey.Marshal: json.Marshal wrote a markdown state's
// "a < b & c" as "a \u003c b \u0026 c").
func wmContentJSON(content string) json.RawMessage {
	if json.Valid([]byte(content)) && strings.HasPrefix(strings.TrimSpace(content), "{") {
		return json.RawMessage(content)
	}
	b, _ := jsonkey.Marshal(content)
	return b
}

// modeContentJSON is content for wmJSON by the mode it was written in: a
// template-mode state is a JSON string whatever it holds; a schema-mode
// one (or one of no recorded mode) as wmContentJSON gives it.
func modeContentJSON(mode working.Mode, content string) json.RawMessage {
	if mode == working.ModeTemplate {
		b, _ := jsonkey.Marshal(content)
		return b
	}
	return wmContentJSON(content)
}

func (c *WMCommand) printState(st working.State, asJSON bool) error {
	if asJSON {
		out := wmJSON{Key: st.Key, Mode: st.Mode, Version: st.Version}
		if st.Mode == working.ModeSchema {
			out.Content = wmContentJSON(st.Content)
		} else {
			out.Content, _ = jsonkey.Marshal(st.Content)
		}
		if !st.UpdatedAt.IsZero() {
			out.UpdatedAt = &st.UpdatedAt
		}
		return c.printJSON(out)
	}
	fmt.Fprintf(c.Stdout, "%s  %s mode  version %d", st.Key, st.Mode, st.Version)
	if !st.UpdatedAt.IsZero() {
		fmt.Fprintf(c.Stdout, "  updated %s", st.UpdatedAt.Format(time.RFC3339))
	}
	fmt.Fprintln(c.Stdout)
	fmt.Fprintln(c.Stdout, prettyContent(st.Mode, st.Content))
	return nil
}

// printRaw writes st's content alone, byte for byte as stored, so that
// wm set of what it wrote stores the same state ("unchanged"): no header,
// no newline added, and, unless standard output is a terminal, no escapes
// (termSafe writes ESC as \u001b, which wm set would store as those six
// characters). On a terminal the content is escaped as all output is.
func (c *WMCommand) printRaw(st working.State) error {
	w := c.Stdout
	if !isTerminal(w) {
		w = rawWriter(w)
	}
	_, err := io.WriteString(w, st.Content)
	return err
}

func (c *WMCommand) printHistory(h []working.Version, asJSON bool) error {
	if asJSON {
		out := make([]wmJSON, len(h))
		for i, v := range h {
			at := v.UpdatedAt
			out[i] = wmJSON{Key: v.Key, Mode: v.Mode, Version: v.Version, Content: modeContentJSON(v.Mode, v.Content),
				RunID: v.RunID, ToolCallID: v.ToolCallID, UpdatedAt: &at}
		}
		return c.printJSON(out)
	}
	if len(h) == 0 {
		fmt.Fprintln(c.Stdout, "no versions")
		return nil
	}
	for _, v := range h {
		// The mode of each version: after a change of the configured
		// mode the listing mixes JSON and markdown states.
		fmt.Fprintf(c.Stdout, "version %d  %s mode  %s", v.Version, v.Mode, v.UpdatedAt.Format(time.RFC3339))
		if v.RunID != "" {
			fmt.Fprintf(c.Stdout, "  run %s", v.RunID)
		}
		if v.ToolCallID != "" {
			fmt.Fprintf(c.Stdout, "  call %s", v.ToolCallID)
		}
		fmt.Fprintf(c.Stdout, "\n  %s\n", oneLine(v.Content, 160))
	}
	return nil
}

// prettyContent indents a schema-mode state; markdown is printed as is.
func prettyContent(mode working.Mode, content string) string {
	if mode == working.ModeSchema {
		var buf bytes.Buffer
		if json.Indent(&buf, []byte(content), "", "  ") == nil {
			return buf.String()
		}
	}
	return strings.TrimRight(content, "\n")
}

// jsonFileSyntax says where raw, the bytes of a file given to wm set (a
// --schema file, a schema-mode state), is not one JSON text, as
// mnemo.json's reader does (jsonSyntaxDetail): "malformed JSON at byte N:
// …" (from 0), "the JSON ends before its value does", "unexpected data
// after the JSON value at byte N", or that the file is empty (want names
// what it should hold); "" when it is one JSON text. The schema's compiler
// (working.New) and the state's check said "invalid character '}' …",
// "unexpected EOF" or "EOF", naming neither the file nor the place.
func jsonFileSyntax(raw []byte, want string) string {
	src := bytes.NewReader(raw)
	dec := json.NewDecoder(src)
	var v json.RawMessage
	err := dec.Decode(&v)
	if errors.Is(err, io.EOF) {
		return "the file is empty (want " + want + ")"
	}
	if err == nil {
		err = jsonkey.End(dec, src)
	}
	if err == nil {
		return ""
	}
	if detail := jsonSyntaxDetail(raw, err); detail != "" {
		return detail
	}
	return err.Error()
}
