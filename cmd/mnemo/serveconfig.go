package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/jsonkey"
	"github.com/mnemo-go/mnemo/internal/render"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/server"
	"github.com/mnemo-go/mnemo/working"
)

// StoredConfigFile is where a data directory keeps its memory configuration
// (written by `mnemo serve --config FILE`, read by every command that opens
// the directory, a later `mnemo serve` included) but for working memory,
// whose configuration the engine stores with the states, so that an
// application, the CLI, the HTTP API and the MCP tools render and validate
// working memory the same way (a workingMemory member written into it by
// hand is checked and stored there too: storedMemoryConfig).
const StoredConfigFile = "mnemo.json"

// configMembers lists memoryConfig's members for mnemo serve --help
// (TestConfigMembersListed keeps it whole).
const configMembers = "recentN, recall, workingMemory, observe, retention, lifecycle, limits, server, timeZone, resourceTimeZones"

// memoryConfig is the JSON document of `mnemo serve --config FILE` (docs/serve.md,
// "mnemo.json"). Every field is optional; absent means the engine default.
//
//	{
//	  "recentN": 10,
//	  "recall": {"topK": 5, "messageRange": 1},
//	  "workingMemory": {"template": "# User\n- Name:\n", "scope": "resource"},
//	  "observe": {"endpoint": "http://localhost:11434/v1", "model": "qwen2.5:7b", "threshold": 30000},
//	  "retention": {"keepRuns": 200, "maxAge": "720h"},
//	  "limits": {"maxContentBytes": 65536},
//	  "server": {"maxBodyBytes": 4194304, "requestTimeout": "1m"},
//	  "timeZone": "Europe/Paris",
//	  "resourceTimeZones": {"kenji": "Asia/Tokyo"},
//	  "lifecycle": {"idleTtl": "24h", "quota": {"resourceBytes": 50000000}}
//	}
type memoryConfig struct {
	// path is the file the configuration was read from, which its errors
	// name ("" for none).
	path string
	// stored is set for a data directory's stored configuration
	// (storedMemoryConfig), whose errors say what to do about it.
	stored        bool
	RecentN       int              `json:"recentN,omitempty"`
	Recall        *recall.Options  `json:"recall,omitempty"`
	WorkingMemory *wmConfig        `json:"workingMemory,omitempty"`
	Observe       *observeConfig   `json:"observe,omitempty"`
	Retention     *retentionConfig `json:"retention,omitempty"`
	Limits        *limitsConfig    `json:"limits,omitempty"`
	Server        *serverConfig    `json:"server,omitempty"`
	// TimeZone is engine.Config.TimeZone by name ("UTC", an IANA name such
	// as "Europe/Paris", or "UTC+02:00"); empty means UTC.
	TimeZone string `json:"timeZone,omitempty"`
	// ResourceTimeZones gives resources their own zone (resource id → zone
	// name), engine.Config.ResourceTimeZone.
	ResourceTimeZones map[string]string `json:"resourceTimeZones,omitempty"`
	// Lifecycle is engine.Config.Lifecycle (lifecycle.go).
	Lifecycle *lifecycleConfig `json:"lifecycle,omitempty"`
}

// wmConfig is working.Config in JSON: schema (inline, or schemaFile
// relative to the config file) or template, scope, readOnly, maxChars.
type wmConfig struct {
	Mode       string          `json:"mode,omitempty"` // "schema" or "template"; default from schema/template
	Schema     json.RawMessage `json:"schema,omitempty"`
	SchemaFile string          `json:"schemaFile,omitempty"`
	Template   string          `json:"template,omitempty"`
	Scope      string          `json:"scope,omitempty"` // "thread" (default) or "resource"
	ReadOnly   bool            `json:"readOnly,omitempty"`
	MaxChars   int             `json:"maxChars,omitempty"`
}

// observeConfig configures observational memory with an OpenAI-compatible
// endpoint; the API key comes from the environment variable apiKeyEnv
// (default OPENAI_API_KEY), never from the file.
type observeConfig struct {
	// Endpoint is the API root ("http://localhost:11434/v1"; none:
	// OpenAI's); credentials, a query or a fragment are refused
	// (checkEndpoint).
	Endpoint         string `json:"endpoint,omitempty"`
	Model            string `json:"model,omitempty"`
	APIKeyEnv        string `json:"apiKeyEnv,omitempty"`
	Threshold        int    `json:"threshold,omitempty"`
	ReflectThreshold int    `json:"reflectThreshold,omitempty"`
	ChunkTokens      int    `json:"chunkTokens,omitempty"`
	// CallTimeout is engine.ObserveConfig.CallTimeout, a Go duration
	// ("90s"): the bound on one model call. None: the default,
	// observe.DefaultCallTimeout (2 minutes); 0, negative or no duration is
	// refused naming observe.callTimeout.
	CallTimeout string `json:"callTimeout,omitempty"`
	// MaxAnswerTokens is engine.ObserveConfig.MaxAnswerTokens, the bound
	// on one answer in tokens (max_tokens): none or 0 the default,
	// observe.DefaultMaxAnswerTokens (4,096); negative or above
	// observe.MaxAnswerTokensLimit refused naming observe.maxAnswerTokens.
	MaxAnswerTokens int `json:"maxAnswerTokens,omitempty"`
	// MaxUnobservedTokens is engine.ObserveConfig.MaxUnobservedTokens: 0
	// the default, -1 no bound.
	MaxUnobservedTokens int    `json:"maxUnobservedTokens,omitempty"`
	Background          bool   `json:"background,omitempty"`
	SyncOnLoad          bool   `json:"syncOnLoad,omitempty"`
	Scope               string `json:"scope,omitempty"`
	SearchTool          bool   `json:"searchTool,omitempty"`
}

type retentionConfig struct {
	KeepRuns int    `json:"keepRuns,omitempty"`
	MaxAge   string `json:"maxAge,omitempty"` // a Go duration, e.g. "720h"
}

type limitsConfig struct {
	MaxContentBytes      int `json:"maxContentBytes,omitempty"`
	MaxToolResultBytes   int `json:"maxToolResultBytes,omitempty"`
	MaxMetadataBytes     int `json:"maxMetadataBytes,omitempty"`
	MaxMessagesPerAppend int `json:"maxMessagesPerAppend,omitempty"`
	MaxQueryBytes        int `json:"maxQueryBytes,omitempty"`  // engine.Limits.MaxQueryBytes
	MaxAnswerBytes       int `json:"maxAnswerBytes,omitempty"` // engine.Limits.MaxAnswerBytes
}

type serverConfig struct {
	MaxBodyBytes int64 `json:"maxBodyBytes,omitempty"`
	// RequestTimeout is server.Config.RequestTimeout as a Go duration,
	// e.g. "5m"; none or "0s" is its default (1 minute); at least
	// server.MinRequestTimeout (1s), under which requests that would
	// succeed are cut off.
	RequestTimeout string `json:"requestTimeout,omitempty"`
	// MaxConnections is server.Config.MaxConns: the most connections
	// mnemo serve keeps open; 0 or none is its default (1024, or half
	// the process's limit on open files when lower).
	MaxConnections int `json:"maxConnections,omitempty"`
}

// requestTimeout is server.Config.RequestTimeout of s (0: the default),
// or an error naming server.requestTimeout: a negative duration, one
// below server.MinRequestTimeout (with "1ns" every request was a 503
// "timeout"), or one that is no Go duration. s may be nil.
func (s *serverConfig) requestTimeout() (time.Duration, error) {
	if s == nil || s.RequestTimeout == "" {
		return 0, nil
	}
	if durationTooLong(s.RequestTimeout) {
		return 0, fmt.Errorf("server.requestTimeout: %q %s", s.RequestTimeout, durationRange)
	}
	d, err := time.ParseDuration(s.RequestTimeout)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("server.requestTimeout: must be a non-negative Go duration such as \"5m\" (0: the default, 1 minute), got %q", s.RequestTimeout)
	}
	if d > 0 && d < server.MinRequestTimeout {
		return 0, fmt.Errorf("server.requestTimeout: %q is below %s, the shortest: a shorter timeout answers requests that would succeed with 503 \"timeout\" (0: the default, 1 minute)", s.RequestTimeout, server.MinRequestTimeout)
	}
	return d, nil
}

// jsonSyntaxDetail words err, json.Decoder's error on text that is not
// JSON, with its place as the token file's (server.ParseTokens): "malformed
// JSON at byte N: invalid character …" (N counted from 0,
// jsonkey.SyntaxOffset; a character past ASCII named with its code point,
// '\u00a0' (U+00A0), jsonkey.NamedSyntax), or, for a text that stops
// inside its value, "the JSON ends before its value does (a closing quote,
// ] or } is missing)"; "" for any other error. encoding/json's own words
// named no place, and such a character by a byte of it ('Â').
func jsonSyntaxDetail(text []byte, err error) string {
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON ends before its value does (a closing quote, ] or } is missing)"
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d: %v", jsonkey.SyntaxOffset(se), jsonkey.NamedSyntax(text, se))
	}
	return ""
}

// readMemoryConfig reads a config file; an unknown field (with the field it
// most likely meant), a member of the wrong type, a member given twice in
// one object and a member named in another case than its field's
// ("Limits": names are case-sensitive, as in a request body) are errors
// naming their path (server.FieldFault, server.UnknownField), as is
// anything but whitespace after the object ("unexpected data after the
// JSON value at byte N"); a text that is not JSON names where it breaks
// (jsonSyntaxDetail); and a schemaFile is inlined (relative to the
// file's directory).
func readMemoryConfig(path string) (*memoryConfig, error) {
	b, err := readConfigFile(path)
	if err != nil {
		return nil, err
	}
	if err := jsonkey.Text(b); err != nil {
		// A byte-order mark was "invalid character 'ï' looking for
		// beginning of value".
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if p := server.DuplicateKey(b); p != "" {
		// encoding/json would keep the last silently.
		return nil, fmt.Errorf("%s: %q is given twice in one object", path, p)
	}
	var c memoryConfig
	src := bytes.NewReader(b)
	dec := json.NewDecoder(src)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: the file is empty (want a JSON object; docs/serve.md)", path)
		}
		if detail := jsonSyntaxDetail(b, err); detail != "" {
			return nil, fmt.Errorf("%s: %s", path, detail)
		}
		if p, detail := server.FieldFault(b, reflect.TypeFor[memoryConfig]()); p != "" {
			// encoding/json said `json: unknown field "mdoe"`, naming no
			// path, and a wrong type in Go's words.
			return nil, fmt.Errorf("%s: %s", path, detail)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := jsonkey.End(dec, src); err != nil {
		// A stray "}", or a second object whose settings were dropped.
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if p, detail := server.UnknownField(b, reflect.TypeFor[memoryConfig]()); p != "" {
		// A member named in another case ("Limits", "recall.TopK"):
		// encoding/json matched it to its field, the HTTP API and the
		// names docs/serve.md gives do not.
		return nil, fmt.Errorf("%s: %s", path, detail)
	}
	if w := c.WorkingMemory; w != nil && w.SchemaFile != "" {
		if len(w.Schema) > 0 {
			return nil, fmt.Errorf("%s: workingMemory: give schema or schemaFile, not both", path)
		}
		sf := w.SchemaFile
		if !filepath.IsAbs(sf) {
			sf = filepath.Join(filepath.Dir(path), sf)
		}
		if w.Schema, err = readConfigFile(sf); err != nil {
			return nil, fmt.Errorf("%s: workingMemory.schemaFile: %w", path, err)
		}
		if len(bytes.TrimSpace(w.Schema)) == 0 { // was read as no schema: template mode, in silence
			return nil, fmt.Errorf("%s: workingMemory.schemaFile: %s is empty; schema mode needs a JSON Schema object", path, sf)
		}
		w.SchemaFile = ""
	}
	c.path = path
	return &c, nil
}

// maxConfigBytes bounds a configuration file and its schemaFile: a JSON
// configuration is a few KiB, and a path such as /dev/zero would otherwise
// be read until memory runs out.
const maxConfigBytes = 4 << 20

// readConfigFile reads path whole, refusing more than maxConfigBytes. A
// pipe that gives nothing (a FIFO with no writer: openConfigFile does not
// wait for one) is an error saying so.
func readConfigFile(path string) ([]byte, error) {
	f, err := openConfigFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		// A read of f fails with a *fs.PathError naming the path ("read
		// D/mnemo.json: is a directory"); wrapped again it said "read
		// D/mnemo.json: read D/mnemo.json: is a directory".
		return nil, err
	}
	if len(b) > maxConfigBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes (a configuration is a few KiB)", path, maxConfigBytes)
	}
	if fi, err := f.Stat(); len(b) == 0 && err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
		return nil, fmt.Errorf("%s is a pipe that gave nothing to read (mnemo does not wait for a FIFO's writer: open it for writing first, as <(…) does, or give a regular file)", path)
	}
	return b, nil
}

// name is the file the configuration came from, as its errors name it.
func (c *memoryConfig) name() string {
	if c == nil || c.path == "" {
		return StoredConfigFile
	}
	return c.path
}

// recallText words an error of recall.Options.Validate for a
// configuration file, once: "recall.topK must be within [0, 1000], got
// -1", "recall.filter at seq ($like): unknown operator …" (before:
// "recall: recall: invalid options: …"). It is a plain error: a file's
// value, not a flag, so not a usage error.
func recallText(err error) error {
	var oe *recall.OptionError
	var fe *recall.FilterError
	switch {
	case errors.As(err, &oe):
		return fmt.Errorf("recall.%s %s", oe.Field, oe.Rule)
	case errors.As(err, &fe):
		return fmt.Errorf("recall.filter %s", strings.TrimPrefix(fe.Error(), "recall: invalid filter "))
	}
	return fmt.Errorf("recall: %s", strings.TrimPrefix(err.Error(), "recall: "))
}

// storedMemoryConfig reads dir's stored configuration; nil when none.
// mnemo stores it without working memory (store): that configuration is
// stored with the states in the database (working.SaveConfig, when an
// engine opens with one), where an application's
// engine.Config.WorkingMemory lands too, and the engine uses it when the
// command configures none. A workingMemory member written into it by hand
// is kept: apply checks it as it checks recall (a bad one is a
// *storedConfigError naming the field) and configures the engine with it,
// which stores it in the database (before, it was dropped in silence and
// working memory stayed off). A Postgres database (dir "")
// stores no file: mnemo serve --config stores its limits, retention and
// lifecycle in the database (target.sharing), and each mnemo serve takes
// the rest from its own --config. A mnemo.json that is
// a symbolic link to nothing is an error (danglingConfig), not none.
// Errors are *storedConfigError.
func storedMemoryConfig(dir string) (*memoryConfig, error) {
	if dir == "" {
		return nil, nil
	}
	path := filepath.Join(dir, StoredConfigFile)
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	c, err := readMemoryConfig(path)
	if errors.Is(err, os.ErrNotExist) {
		err = danglingConfig(path, err)
	}
	if err != nil {
		return nil, &storedConfigError{Dir: dir, Err: err}
	}
	c.stored = true
	return c, nil
}

// danglingConfig words err, the read of path that found no file although
// path exists: a symbolic link whose target does not exist. Read as no
// configuration (before), a mnemo.json linked to a file moved away ran
// every command, mnemo serve included, with the defaults in silence (no
// quota, no lifetime) where the operator had configured them.
func danglingConfig(path string, err error) error {
	to, lerr := os.Readlink(path)
	if _, serr := os.Stat(path); lerr != nil || !errors.Is(serr, os.ErrNotExist) {
		return err // a file read through it is missing (its schemaFile)
	}
	return fmt.Errorf("%s is a symbolic link to %s, which does not exist (no configuration is read through it)", path, to)
}

// storedConfigError is dir's stored configuration that cannot be read or
// applied (Err); its text says what to do about it: every command reads
// it, so without the advice a garbled mnemo.json left the directory
// unusable with only a JSON error. mnemo check and mnemo salvage run
// without it (Main.damagedConfig).
type storedConfigError struct {
	Dir string
	Err error // names the file, and the byte or member at fault
	// implicit: no --dir chose Dir, so the command its advice gives
	// names none (target.mnemo).
	implicit bool
}

// storedConfig is storedMemoryConfig of t's data directory, its
// *storedConfigError's advice naming t as the user did (target.mnemo).
func (t target) storedConfig() (*memoryConfig, error) {
	mc, err := storedMemoryConfig(t.dir)
	if se := (*storedConfigError)(nil); errors.As(err, &se) {
		se.implicit = t.implicit
	}
	return mc, err
}

func (e *storedConfigError) Error() string {
	return fmt.Sprintf("stored configuration: %v\nWhat to do: %s", e.Err, e.advice())
}

func (e *storedConfigError) Unwrap() error { return e.Err }

// advice says what to do about the damaged configuration; for a model
// endpoint refused (endpointError), what to do about it first.
func (e *storedConfigError) advice() string {
	var first string
	if ee := (*endpointError)(nil); errors.As(e.Err, &ee) {
		first = ee.Advice + "; "
	}
	return first + fmt.Sprintf("%s is the configuration the last mnemo serve --config stored in %s; "+
		"fix it, move it away to run with the defaults (nothing else is kept in it), "+
		"or replace it with a good FILE: %s", StoredConfigFile, e.Dir, target{dir: e.Dir, implicit: e.implicit}.mnemo("serve", "--config", "FILE"))
}

// store writes c, less its working memory (stored in the database), as
// dir's stored configuration (0600, atomically).
func (c *memoryConfig) store(dir string) error {
	cc := c.storedForm()
	b, err := json.MarshalIndent(&cc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	// A new file of a random name (O_EXCL, 0600), never a fixed name a
	// symlink planted in dir could send the write through.
	f, err := os.CreateTemp(dir, StoredConfigFile+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, StoredConfigFile))
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// storedForm is c as store writes it: less its working memory, and with
// every bound that is 0 left out, as a 0 keepRuns and a 0 quota bound
// are by omitempty: retention.maxAge and lifecycle.idleTtl of a zero
// duration ("0s", "0h"), which means what leaving them out means, no bound
// (docs/operations.md, "Zero is no bound"), and an empty retention. It
// changes nothing of c. lifecycle.sweepEvery "0s" is kept: it turns the
// sweep off, where none is the default.
func (c *memoryConfig) storedForm() memoryConfig {
	cc := *c
	cc.WorkingMemory = nil
	zero := func(d string) bool {
		v, err := time.ParseDuration(d)
		return d != "" && err == nil && v == 0
	}
	if r := cc.Retention; r != nil {
		rc := *r
		if zero(rc.MaxAge) {
			rc.MaxAge = ""
		}
		cc.Retention = &rc
		if rc == (retentionConfig{}) {
			cc.Retention = nil
		}
	}
	if l := cc.Lifecycle; l != nil && zero(l.IdleTTL) {
		lc := *l
		lc.IdleTTL = ""
		cc.Lifecycle = &lc
	}
	return cc
}

// workingConfig returns the working.Config, or nil when working memory is off.
func (c *memoryConfig) workingConfig() (*working.Config, error) {
	w := c.WorkingMemory
	if w == nil {
		return nil, nil
	}
	wc := &working.Config{Mode: working.Mode(w.Mode), Schema: w.Schema, Template: w.Template, Scope: working.Scope(w.Scope), ReadOnly: w.ReadOnly, MaxChars: w.MaxChars}
	switch wc.Mode {
	case "", working.ModeSchema, working.ModeTemplate:
	default:
		return nil, fmt.Errorf("workingMemory.mode must be schema or template, got %q", w.Mode)
	}
	switch wc.Scope {
	case "", working.ScopeThread, working.ScopeResource:
	default:
		return nil, fmt.Errorf("workingMemory.scope must be thread or resource, got %q", w.Scope)
	}
	if w.MaxChars < 0 {
		// Read as the default before.
		return nil, fmt.Errorf("workingMemory.maxChars must be >= 0 (0: the default, %d), got %d", working.DefaultMaxChars, w.MaxChars)
	}
	return wc, nil
}

// applyZones sets cfg's time zones from their names; an unknown name is an
// error naming its field.
func (c *memoryConfig) applyZones(cfg *engine.Config) error {
	if c.TimeZone != "" {
		loc, err := render.ParseZone(c.TimeZone)
		if err != nil {
			return fmt.Errorf("timeZone: %w", err)
		}
		cfg.TimeZone = loc
	}
	if len(c.ResourceTimeZones) == 0 {
		return nil
	}
	zones := make(map[string]*time.Location, len(c.ResourceTimeZones))
	for r, name := range c.ResourceTimeZones {
		loc, err := render.ParseZone(name)
		if err != nil {
			return fmt.Errorf("resourceTimeZones[%q]: %w", r, err)
		}
		zones[r] = loc
	}
	cfg.ResourceTimeZone = func(r string) *time.Location { return zones[r] }
	return nil
}

// keyEnv is apiKeyEnv, default OPENAI_API_KEY.
func (o *observeConfig) keyEnv() string {
	if o.APIKeyEnv == "" {
		return "OPENAI_API_KEY"
	}
	return o.APIKeyEnv
}

// model is the observer model o names: endpoint, model, and the API key
// in the environment variable apiKeyEnv (default OPENAI_API_KEY). An
// endpoint with credentials, a query or a fragment is refused
// (errBadEndpoint, naming mnemo.json's observe.endpoint).
func (o *observeConfig) model(getenv func(string) string) (observe.Model, error) {
	keyEnv := o.keyEnv()
	if err := needKey("mnemo.json's observe model "+o.Model, o.Endpoint, getenv(keyEnv), "mnemo.json's observe.endpoint", keyEnv); err != nil {
		return nil, err
	}
	m, err := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: o.Endpoint, APIKey: getenv(keyEnv), Model: o.Model})
	if err != nil {
		return nil, fmt.Errorf("observe: %w", err)
	}
	return m, nil
}

// apply sets cfg's memory fields from c. The observer model is built only
// when withModel (the services: mnemo serve and mnemo mcp); other commands
// render stored observations (mnemo observe sets its own: observeModel).
func (c *memoryConfig) apply(cfg *engine.Config, getenv func(string) string, withModel bool) error {
	if c == nil {
		return nil
	}
	cfg.RecentN = c.RecentN
	if err := c.applyZones(cfg); err != nil {
		return err
	}
	if c.Recall != nil {
		if err := c.Recall.Validate(); err != nil {
			return recallText(err)
		}
		o := *c.Recall
		cfg.Recall = &o
	}
	wc, err := c.workingConfig()
	if err != nil {
		return err
	}
	if wc != nil {
		if err := working.CheckConfig(*wc); err != nil { // before the engine opens (and creates a database)
			return fmt.Errorf("workingMemory: %w", err)
		}
	}
	cfg.WorkingMemory = wc
	if r := c.Retention; r != nil {
		if cfg.Retention, err = r.retention(); err != nil {
			return err
		}
	}
	if err := c.Lifecycle.apply(cfg); err != nil {
		return err
	}
	if err := c.checkLimits(); err != nil {
		return err
	}
	if l := c.Limits; l != nil {
		cfg.Limits = engine.Limits{MaxContentBytes: l.MaxContentBytes, MaxToolResultBytes: l.MaxToolResultBytes,
			MaxMetadataBytes: l.MaxMetadataBytes, MaxMessagesPerAppend: l.MaxMessagesPerAppend, MaxQueryBytes: l.MaxQueryBytes,
			MaxAnswerBytes: l.MaxAnswerBytes}
	}
	if o := c.Observe; o != nil {
		if err := o.check(); err != nil {
			return err
		}
		if !c.stored { // a stored one is refused where its model is built (model)
			if err := checkEndpoint("observe.endpoint", o.Endpoint, o.keyEnv()); err != nil {
				return err
			}
		}
		oc := &engine.ObserveConfig{Threshold: o.Threshold, ReflectThreshold: o.ReflectThreshold, ChunkTokens: o.ChunkTokens,
			Background: o.Background && withModel, SyncOnLoad: o.SyncOnLoad && withModel, Scope: o.Scope, SearchTool: o.SearchTool,
			MaxUnobservedTokens: o.MaxUnobservedTokens, MaxAnswerTokens: o.MaxAnswerTokens}
		oc.CallTimeout, _ = o.callTimeout() // checked by o.check
		if o.MaxUnobservedTokens == -1 {
			oc.MaxUnobservedTokens = engine.NoUnobservedBound
		}
		if withModel && o.Model != "" {
			if oc.Model, err = o.model(getenv); err != nil {
				return err
			}
		}
		cfg.Observe = oc
	}
	return nil
}

// retention is journal.Retention of r. A negative keepRuns or maxAge is
// refused naming it: the journal reads one as "keep everything".
func (r *retentionConfig) retention() (journal.Retention, error) {
	out := journal.Retention{KeepRuns: r.KeepRuns}
	if r.KeepRuns < 0 {
		return out, fmt.Errorf("retention.keepRuns must be >= 0 (0: no limit by count), got %d", r.KeepRuns)
	}
	if r.MaxAge == "" {
		return out, nil
	}
	d, err := time.ParseDuration(r.MaxAge)
	if durationTooLong(r.MaxAge) {
		return out, fmt.Errorf("retention.maxAge: %q %s", r.MaxAge, durationRange)
	}
	if err != nil {
		return out, fmt.Errorf("retention.maxAge: %w", err)
	}
	if d < 0 {
		return out, fmt.Errorf("retention.maxAge must not be negative (0: no limit by age), got %q", r.MaxAge)
	}
	out.MaxAge = d
	return out, nil
}

// checkLimits refuses a negative limit (recentN, limits.* and lifecycle.quota.*),
// naming the field: 0 or none means the default (for a quota: no bound),
// and a negative number was silently taken as it. The settings only mnemo
// serve uses are checkServed's.
func (c *memoryConfig) checkLimits() error {
	var fields []struct {
		name string
		v    int64
	}
	add := func(name string, v int64) {
		fields = append(fields, struct {
			name string
			v    int64
		}{name, v})
	}
	add("recentN", int64(c.RecentN))
	if l := c.Limits; l != nil {
		add("limits.maxContentBytes", int64(l.MaxContentBytes))
		add("limits.maxToolResultBytes", int64(l.MaxToolResultBytes))
		add("limits.maxMetadataBytes", int64(l.MaxMetadataBytes))
		add("limits.maxMessagesPerAppend", int64(l.MaxMessagesPerAppend))
		add("limits.maxQueryBytes", int64(l.MaxQueryBytes))
		add("limits.maxAnswerBytes", int64(l.MaxAnswerBytes))
	}
	for _, f := range fields {
		if f.v < 0 {
			return fmt.Errorf("%s must be >= 0 (0: the default), got %d", f.name, f.v)
		}
	}
	if err := c.Limits.checkAnswer(); err != nil {
		return err
	}
	return c.Lifecycle.checkQuota()
}

// checkAnswer refuses a limits.maxAnswerBytes below limits.maxContentBytes
// (either as given, or its default), naming both and their values, as
// engine.Open refuses it (engine.ErrAnswerBoundTooSmall): a thread whose
// newest message is larger than the bound would load no context at all.
// A nil l (no limits section) holds the defaults.
func (l *limitsConfig) checkAnswer() error {
	if l == nil {
		return nil
	}
	answer, content := l.MaxAnswerBytes, l.MaxContentBytes
	answerWhat, contentWhat := "", ""
	if answer == 0 {
		answer, answerWhat = engine.DefaultMaxAnswerBytes, ", the default"
	}
	if content == 0 {
		content, contentWhat = engine.DefaultMaxContentBytes, ", the default"
	}
	if answer < content {
		return fmt.Errorf("limits.maxAnswerBytes (%d%s) must be at least limits.maxContentBytes (%d%s), the content one message may hold: a thread whose newest message is larger would load no context; raise limits.maxAnswerBytes or lower limits.maxContentBytes",
			answer, answerWhat, content, contentWhat)
	}
	return nil
}

// callTimeout is o.CallTimeout parsed (0 when absent: the default), or an
// error naming observe.callTimeout: no Go duration, 0 or negative, or out
// of range.
func (o *observeConfig) callTimeout() (time.Duration, error) {
	if o.CallTimeout == "" {
		return 0, nil
	}
	if durationTooLong(o.CallTimeout) {
		return 0, fmt.Errorf("observe.callTimeout: %q %s", o.CallTimeout, durationRange)
	}
	d, err := time.ParseDuration(o.CallTimeout)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("observe.callTimeout: must be a positive Go duration such as \"90s\" (none: the default, %s), got %q", observe.DefaultCallTimeout, o.CallTimeout)
	}
	return d, nil
}

// check refuses what the observer would refuse at its first use: a
// negative threshold, reflectThreshold, chunkTokens or maxAnswerTokens (0
// means the default), a maxAnswerTokens above observe.MaxAnswerTokensLimit, a scope other than thread or resource (empty means thread),
// a callTimeout callTimeout refuses.
func (o *observeConfig) check() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"threshold", o.Threshold}, {"reflectThreshold", o.ReflectThreshold}, {"chunkTokens", o.ChunkTokens}, {"maxAnswerTokens", o.MaxAnswerTokens}} {
		if f.v < 0 {
			return fmt.Errorf("observe.%s must be >= 0, got %d", f.name, f.v)
		}
	}
	if o.MaxAnswerTokens > observe.MaxAnswerTokensLimit {
		return fmt.Errorf("observe.maxAnswerTokens must be at most %d (0: the default, %d), got %d", observe.MaxAnswerTokensLimit, observe.DefaultMaxAnswerTokens, o.MaxAnswerTokens)
	}
	if o.MaxUnobservedTokens < -1 {
		return fmt.Errorf("observe.maxUnobservedTokens must be >= 0 (0: the default) or -1 (no bound), got %d", o.MaxUnobservedTokens)
	}
	if o.Scope != "" && o.Scope != engine.ObserveScopeThread && o.Scope != engine.ObserveScopeResource {
		return fmt.Errorf("observe.scope must be %s or %s, got %q", engine.ObserveScopeThread, engine.ObserveScopeResource, o.Scope)
	}
	_, err := o.callTimeout()
	return err
}

// checkServed refuses what only mnemo serve uses, naming the field: a
// negative server.maxBodyBytes or server.maxConnections (0: the default), a server.requestTimeout
// that is negative, no Go duration or below server.MinRequestTimeout, and
// a lifecycle.sweepEvery that is negative or no Go duration. c may be
// nil. Main.checkServed decides what a refusal does: serve's error, any
// other command's warning.
func (c *memoryConfig) checkServed() error {
	if c == nil {
		return nil
	}
	if c.Server != nil && c.Server.MaxBodyBytes < 0 {
		return fmt.Errorf("server.maxBodyBytes must be >= 0 (0: the default), got %d", c.Server.MaxBodyBytes)
	}
	if c.Server != nil && c.Server.MaxConnections < 0 {
		return fmt.Errorf("server.maxConnections must be >= 0 (0: the default), got %d", c.Server.MaxConnections)
	}
	if _, err := c.Server.requestTimeout(); err != nil {
		return err
	}
	_, err := c.Lifecycle.sweepEvery()
	return err
}
