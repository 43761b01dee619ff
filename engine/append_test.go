package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

func user(id, content string) engine.Message {
	return engine.Message{ID: id, Role: engine.RoleUser, Content: content}
}

func TestAppendValidation(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{Limits: engine.Limits{MaxContentBytes: 100, MaxMetadataBytes: 64, MaxMetadataDepth: 3, MaxMessagesPerAppend: 5}})
		ok := user("", "hello")
		deep := map[string]any{"a": map[string]any{"b": map[string]any{"c": map[string]any{"d": 1}}}}
		tests := []struct {
			name  string
			req   engine.AppendRequest
			index int
			field string
		}{
			{"ThreadID", engine.AppendRequest{ThreadID: "bad/id", ResourceID: "r", Messages: []engine.Message{ok}}, -1, "threadId"},
			{"ThreadIDTooLong", engine.AppendRequest{ThreadID: strings.Repeat("a", 129), ResourceID: "r", Messages: []engine.Message{ok}}, -1, "threadId"},
			{"ResourceID", engine.AppendRequest{ThreadID: "t", ResourceID: "r r", Messages: []engine.Message{ok}}, -1, "resourceId"},
			{"ResourceIDMissingForNewThread", engine.AppendRequest{ThreadID: "t", Messages: []engine.Message{ok}}, -1, "resourceId"},
			{"NoMessages", engine.AppendRequest{ThreadID: "t", ResourceID: "r"}, -1, "messages"},
			{"TooManyMessages", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{ok, ok, ok, ok, ok, ok}}, -1, "messages"},
			{"Role", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{ok, {Role: "bot", Content: "x"}}}, 1, "role"},
			{"SystemRole", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: "system", Content: "x"}}}, 0, "role"},
			{"MessageID", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("../etc", "x")}}, 0, "id"},
			{"ToolWithoutCallID", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: "tool", Content: "x"}}}, 0, "toolCallId"},
			{"ToolCallArgumentsNotJSON", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "c1", Name: "f", Arguments: json.RawMessage(`{"a":`)}}}}}, 0, "toolCalls[0].arguments"},
			{"ToolCallArgumentsList", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "c1", Name: "f", Arguments: json.RawMessage(`[1]`)}}}}}, 0, "toolCalls[0].arguments"},
			{"ToolCallArgumentsNumber", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "c1", Name: "f", Arguments: json.RawMessage(`{}`)}, {ID: "c2", Name: "f", Arguments: json.RawMessage(` 3`)}}}}}, 0, "toolCalls[1].arguments"},
			{"ToolCallName", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "c1", Name: "no spaces", Arguments: json.RawMessage(`{}`)}}}}}, 0, "toolCalls[0].name"},
			{"ToolCallID", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "c 1", Name: "f", Arguments: json.RawMessage(`{}`)}}}}}, 0, "toolCalls[0].id"},
			{"UserWithToolCalls", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: "user", Content: "x", ToolCalls: []engine.ToolCall{{ID: "c1", Name: "f", Arguments: json.RawMessage(`{}`)}}}}}, 0, "toolCalls"},
			{"NameBidi", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: "user", Content: "x", Name: "bob\u202e"}}}, 0, "name"},
			{"NameTagCharacters", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: "user", Content: "x", Name: "bob\U000E0049\U000E0047\U000E004E"}}}, 0, "name"},
			{"NameAnnotation", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: "user", Content: "x", Name: "bob\ufff9x\ufffb"}}}, 0, "name"},
			{"EmptyAssistant", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: "assistant"}}}, 0, "content"},
			{"ContentTooLarge", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("", strings.Repeat("x", 101))}}, 0, "content"},
			{"InvalidUTF8", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("", "a\xffb")}}, 0, "content"},
			{"NUL", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("", "a\x00b")}}, 0, "content"},
			{"MetadataTooLarge", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: "user", Content: "x", Metadata: map[string]any{"k": strings.Repeat("v", 80)}}}}, 0, "metadata"},
			{"CreatedAtAfterYear9999", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{ok, {Role: "user", Content: "x", CreatedAt: time.UnixMilli(253402300800000)}}}, 1, "createdAt"},
			{"CreatedAtBeforeYear0", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: "user", Content: "x", CreatedAt: time.Date(-1, 12, 31, 0, 0, 0, 0, time.UTC)}}}, 0, "createdAt"},
			// A json.RawMessage value repeating a key was stored with the last one only.
			{"MetadataRepeatedKey", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: "user", Content: "x", Metadata: map[string]any{"k": json.RawMessage(`{"a":1,"a":2}`)}}}}, 0, "metadata"},
			{"MetadataTooDeep", engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: "user", Content: "x", Metadata: deep}}}, 0, "metadata"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := e.Append(ctx, tt.req)
				var ve *engine.ValidationError
				if !errors.As(err, &ve) || !errors.Is(err, engine.ErrInvalidInput) {
					t.Fatalf("err = %v, want a *ValidationError", err)
				}
				if ve.Index != tt.index || ve.Field != tt.field {
					t.Fatalf("error names messages[%d].%s, want [%d].%s (%v)", ve.Index, ve.Field, tt.index, tt.field, err)
				}
				ts, err := e.ListThreads(ctx, "")
				if err != nil {
					t.Fatal(err)
				}
				if len(ts) != 0 {
					t.Fatalf("a refused append stored %d threads", len(ts))
				}
			})
		}
	})
}

// TestAppendToolCallArguments: a tool call's arguments are stored as
// engine.ToolCallArgumentsOf reads them: a JSON object giving each key
// once as given; a string holding one (OpenAI's function.arguments, also
// behind a byte-order mark, U+200B, U+2060 or Unicode white space) as the
// object; an empty string, "null", JSON null or none as {}; other text in
// a string (a model's text) as given. A list, a number, true or false and
// an object repeating a key are refused naming the call's arguments and
// what was given. Before, a string holding an object was refused ("give
// the object itself"), and "" and "null" were stored as strings, while
// mnemo ingest stored the object and {}.
func TestAppendToolCallArguments(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	const (
		kind  = "invalid toolCalls[0].arguments: must be a JSON object (or a string holding a model's text that is not one), got "
		twice = " is given twice in one object; give each member once (engine.ToolCallArguments keeps a model's text that repeats a key as a string)"
	)
	for i, c := range []struct {
		args   string
		stored string // the arguments stored, "=" for args as given
		err    string // the error, when refused
	}{
		{`{"q":"x"}`, "=", ""},
		{` {}`, "=", ""},
		{`{"a":1,"b":{"a":2}}`, "=", ""},
		{`[1]`, "", kind + "a list"},
		{`[]`, "", kind + "a list"},
		{`3`, "", kind + "a number"},
		{`-1.5`, "", kind + "a number"},
		{`false`, "", kind + "true or false"},
		// A key given twice, at any depth, as working memory and metadata
		// refuse it.
		{`{"city":"Lyon","city":"Porto"}`, "", `invalid toolCalls[0].arguments: "city"` + twice},
		{`{"a":{"b":1,"\u0062":2}}`, "", `invalid toolCalls[0].arguments: "a.b"` + twice},
		{`{"a":[{"k":1},{"k":2,"k":3}]}`, "", `invalid toolCalls[0].arguments: "a[1].k"` + twice},
		// A string holding an object is the object (it was refused).
		{`"{\"a\":1}"`, `{"a":1}`, ""},
		{` " {\"a\":{}}\n"`, `{"a":{}}`, ""},
		{`"\ufeff{\"a\":1}"`, `{"a":1}`, ""},
		{"\"\ufeff{\\\"a\\\":1}\"", `{"a":1}`, ""},
		{`"\u200b\u2060 {\"a\":1}\ufeff"`, `{"a":1}`, ""},
		{`"\u00a0\u3000\u2028{}\u0085"`, `{}`, ""},
		// No arguments: none, null, an empty string, "null" (the last two
		// were stored as strings; none was refused, "is required").
		{``, `{}`, ""},
		{`null`, `{}`, ""},
		{`""`, `{}`, ""},
		{`"  "`, `{}`, ""},
		{`"null"`, `{}`, ""},
		// A string holding a model's text that is no object giving each
		// key once is kept as the model sent it: not JSON, a list, a
		// string, a number, an object repeating a key.
		{`"call it with city=Lyon"`, "=", ""},
		{`"{\"city\":\"Lyon\""`, "=", ""},
		{`"[1]"`, "=", ""},
		{`"[]"`, "=", ""},
		{`"\"x\""`, "=", ""},
		{`"12"`, "=", ""},
		{`"{\"a\":1,\"a\":2}"`, "=", ""},
		{`"\ufeffcall it with a=1"`, "=", ""},
		{`"\ufeff[1]"`, "=", ""},
		{`"\u200d{\"a\":1}"`, "=", ""}, // a zero-width joiner joins; it is text
		// Half of a UTF-16 surrogate pair, which encoding/json reads as
		// U+FFFD: refused, as in a request body or an ingested record; a
		// model's text holding an object with one is kept as that text
		// (it was stored as the object, which a re-send over HTTP of the
		// message as read was then refused for).
		{`{"a":"\ud800"}`, "", `invalid toolCalls[0].arguments: must not escape half of a UTF-16 surrogate pair (\ud800 at byte 6), which JSON readers turn into U+FFFD`},
		{`"x\udc00"`, "", `invalid toolCalls[0].arguments: must not escape half of a UTF-16 surrogate pair (\udc00 at byte 2), which JSON readers turn into U+FFFD`},
		{`"{\"a\":\"\\ud800\"}"`, "=", ""},
		{`{"a":"\ud83d\ude00"}`, "=", ""},
		{`"{\"a\":\"\\ud83d\\ude00\"}"`, `{"a":"\ud83d\ude00"}`, ""},
		// A model's text holding an object nested past MaxArgumentsDepth
		// is that text, as one repeating a key is (it was refused: nested
		// 65 levels deep, while 10,001 levels, which encoding/json does
		// not read as JSON, were kept as text); the object itself is
		// refused, and one within the bound is the object.
		{jsonString(nested(65)), "=", ""},
		{jsonString(nested(64)), nested(64), ""},
		{nested(65), "", "invalid toolCalls[0].arguments: nested 65 levels deep, at most 64"},
	} {
		thread := fmt.Sprintf("t%d", i)
		_, err := e.Append(ctx, engine.AppendRequest{ThreadID: thread, ResourceID: "r", Messages: []engine.Message{
			{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "c1", Name: "f", Arguments: json.RawMessage(c.args)}}}}})
		if c.err != "" {
			var ve *engine.ValidationError
			if !errors.As(err, &ve) || "invalid "+ve.Field+": "+ve.Rule != c.err {
				t.Errorf("%s:\n got %v\nwant %s", c.args, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v, want it stored", c.args, err)
			continue
		}
		want := c.stored
		if want == "=" {
			want = c.args
		}
		ms, err := e.Messages(ctx, thread, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(ms[0].ToolCalls[0].Arguments); got != strings.TrimSpace(want) {
			t.Errorf("%s: stored %s, want %s", c.args, got, want)
		}
	}
}

// TestAppendNullArguments: JSON null arguments, and none, are no
// arguments, stored as {}, as mnemo ingest reads them and as
// ToolCallArguments("null") gives; the caller's calls are not written.
// Before, Append refused them ("got null", "is required") while the
// importer stored {}.
func TestAppendNullArguments(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	for i, args := range []string{`null`, " null\n", "\tnull", "", `"{\"b\":2}"`} {
		calls := []engine.ToolCall{{ID: "c1", Name: "f", Arguments: json.RawMessage(`{"a":1}`)}, {ID: "c2", Name: "f", Arguments: json.RawMessage(args)}}
		if args == "" {
			calls[1].Arguments = nil
		}
		thread := fmt.Sprintf("t%d", i)
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: thread, ResourceID: "r", Messages: []engine.Message{
			{Role: engine.RoleAssistant, ToolCalls: calls}}}); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if got := string(calls[1].Arguments); got != args {
			t.Errorf("%q: the caller's call now holds %q", args, got)
		}
		ms, err := e.Messages(ctx, thread, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := `{}`
		if i == 4 {
			want = `{"b":2}`
		}
		if a, b := string(ms[0].ToolCalls[0].Arguments), string(ms[0].ToolCalls[1].Arguments); a != `{"a":1}` || b != want {
			t.Errorf("%q: stored %s and %s, want {\"a\":1} and %s", args, a, b, want)
		}
	}
}

// TestToolCallArguments: the arguments a model sent as OpenAI's
// function.arguments string map to the object when it is one giving each
// key once, else to the text as a JSON string, and Append stores every
// result.
func TestToolCallArguments(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	for i, c := range []struct{ text, want string }{
		{`{"city":"Lyon"}`, `{"city":"Lyon"}`},
		{" {\"a\": [1, {\"b\": null}]}\n", `{"a": [1, {"b": null}]}`},
		{"", `{}`},
		{"  ", `{}`},
		{`{"city":"Lyon"`, `"{\"city\":\"Lyon\""`},
		{`{"city":"Lyon","city":"Porto"}`, `"{\"city\":\"Lyon\",\"city\":\"Porto\"}"`},
		{`[1]`, `"[1]"`},
		{`3`, `"3"`},
		{`null`, `{}`}, // no arguments, as Append stores JSON null and mnemo ingest reads "null"
		{" null\n", `{}`},
		{`nullify`, `"nullify"`},
		{`call lookup with q=x`, `"call lookup with q=x"`},
		// A byte-order mark, a zero-width space or a word joiner around
		// the object is dropped as white space is (the mark made it a
		// string, which Append stored as text).
		{"\ufeff{\"city\":\"Lyon\"}", `{"city":"Lyon"}`},
		{"\u200b\u2060 {\"a\":1}\ufeff\n", `{"a":1}`},
		{"\u00a0\u3000{}\u0085", `{}`},
		{"\ufeff", `{}`},
		{"\ufeff[1]", "\"\ufeff[1]\""},
		{"\u200d{}", "\"\u200d{}\""},
	} {
		got := engine.ToolCallArguments(c.text)
		if string(got) != c.want {
			t.Errorf("ToolCallArguments(%q) = %s, want %s", c.text, got, c.want)
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: fmt.Sprintf("t%d", i), ResourceID: "r", Messages: []engine.Message{
			{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "c1", Name: "f", Arguments: got}}}}}); err != nil {
			t.Errorf("Append of ToolCallArguments(%q) = %s: %v", c.text, got, err)
		}
	}
}

func TestAppendRedactsSecrets(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		secrets := []string{
			"sk-proj-abcdefghijklmnop1234567890",
			"AKIAIOSFODNN7EXAMPLE",
			"eyJhbGciOiJIUzI1NiJ9.payload.sig",
			"hunter2hunter2",
			"s3cr3tSignature",
		}
		_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
			{Role: "user", Content: "my key is " + secrets[0] + " and aws " + secrets[1]},
			{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "c1", Name: "fetch",
				Arguments: json.RawMessage(`{"url":"https://user:` + secrets[3] + `@example.com/x?sig=` + secrets[4] + `&page=2","auth":"Bearer ` + secrets[2] + `"}`)}}},
			{Role: "tool", ToolCallID: "c1", Content: "ok", Metadata: map[string]any{"header": "Authorization: Bearer " + secrets[2]}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		ms, err := e.Messages(ctx, "t", 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(ms)
		for _, s := range secrets {
			if strings.Contains(string(b), s) {
				t.Errorf("secret %q stored: %s", s, b)
			}
		}
		if !json.Valid(ms[1].ToolCalls[0].Arguments) {
			t.Errorf("redacted arguments are not JSON: %s", ms[1].ToolCalls[0].Arguments)
		}
		if !strings.Contains(string(ms[1].ToolCalls[0].Arguments), "page=2") {
			t.Errorf("redaction removed more than the secret: %s", ms[1].ToolCalls[0].Arguments)
		}

		t.Run("Extended", func(t *testing.T) {
			e := be.MustOpen(t, engine.Config{Redactor: engine.DefaultRedactor().With(engine.Rule{
				Name: "ticket", Pattern: mustRegexp(`TICKET-\d+`), Replacement: "TICKET-?",
			})})
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("m1", "see TICKET-4411 and sk-abcdefghijklmnopqrstuvwx")}}); err != nil {
				t.Fatal(err)
			}
			ms, _ := e.Messages(ctx, "t", 1, 0)
			if got, want := ms[0].Content, "see TICKET-? and [REDACTED]"; got != want {
				t.Fatalf("content = %q, want %q", got, want)
			}
		})
	})
}

func TestAppendIdempotent(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		req := engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("u1", "hello"), user("u2", "again")}}
		first, err := e.Append(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		// A framework re-sends the user message with the next step's messages.
		second, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("u2", "again"), {ID: "a1", Role: "assistant", Content: "hi"}}})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprint(first.Seqs, second.Seqs), "[1 2] [2 3]"; got != want {
			t.Fatalf("seqs = %s, want %s", got, want)
		}
		if second.Stored != 1 || second.Duplicates != 1 {
			t.Fatalf("stored %d, duplicates %d; want 1, 1", second.Stored, second.Duplicates)
		}
		t.Run("ErrConflict", func(t *testing.T) {
			_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", Messages: []engine.Message{user("x1", "new"), user("u1", "changed")}})
			if !errors.Is(err, engine.ErrConflict) {
				t.Fatalf("err = %v, want ErrConflict", err)
			}
			ms, _ := e.Messages(ctx, "t", 1, 0)
			if len(ms) != 3 {
				t.Fatalf("a refused append stored messages: %d, want 3", len(ms))
			}
		})
		t.Run("ErrConflictMetadata", func(t *testing.T) {
			// The same id and content with other metadata is a conflict, not a
			// silent duplicate (issue 12 item 8); a new created time is not.
			tagged := func(id string, md map[string]any) engine.Message {
				m := user(id, "tagged")
				m.Metadata = md
				return m
			}
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", Messages: []engine.Message{tagged("md1", map[string]any{"topic": "a", "n": 1})}}); err != nil {
				t.Fatal(err)
			}
			again := tagged("md1", map[string]any{"n": 1, "topic": "a"})
			again.CreatedAt = time.Now().Add(time.Hour)
			res, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", Messages: []engine.Message{again}})
			if err != nil || res.Duplicates != 1 {
				t.Fatalf("same metadata: %+v, %v; want a duplicate", res, err)
			}
			for name, req := range map[string][]engine.Message{
				"Stored":  {tagged("md1", map[string]any{"topic": "b", "n": 1})},
				"NoneNow": {tagged("md1", nil)},
			} {
				_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", Messages: req})
				if !errors.Is(err, engine.ErrConflict) || !strings.Contains(err.Error(), "other metadata") {
					t.Fatalf("%s: err = %v, want ErrConflict naming the metadata", name, err)
				}
			}
		})
		t.Run("ErrConflictOtherThread", func(t *testing.T) {
			_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t2", ResourceID: "r", Messages: []engine.Message{user("u1", "hello")}})
			if !errors.Is(err, engine.ErrConflict) {
				t.Fatalf("err = %v, want ErrConflict", err)
			}
		})
		t.Run("ErrResourceMismatch", func(t *testing.T) {
			_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "other", Messages: []engine.Message{user("", "x")}})
			if !errors.Is(err, engine.ErrResourceMismatch) {
				t.Fatalf("err = %v, want ErrResourceMismatch", err)
			}
		})
	})
}

func TestAppendConcurrentSeqs(t *testing.T) {
	enginetest.ForEachBackendParallel(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		writers, each := 8, 500
		if raceEnabled {
			each = 150 // 8 x 500 took 79 s under -race (load ~12)
		}
		if be.Name == enginetest.Postgres.Name {
			each = 60 // the appends to one thread queue on its lock, a round trip each: 21 s for 500, 45 s for 150 at load 10
		}
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "busy", ResourceID: "r",
						Messages: []engine.Message{user(fmt.Sprintf("w%d-%d", w, i), "message")}}); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		ms, err := e.Messages(ctx, "busy", 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(ms), writers*each; got != want {
			t.Fatalf("stored %d messages, want %d", got, want)
		}
		last := map[string]int{}
		for i, m := range ms {
			if m.Seq != int64(i+1) {
				t.Fatalf("messages[%d].seq = %d: gap or duplicate", i, m.Seq)
			}
			var w, n int
			fmt.Sscanf(m.ID, "w%d-%d", &w, &n)
			if prev, ok := last[fmt.Sprint(w)]; ok && n <= prev {
				t.Fatalf("writer %d's message %d got a seq before its message %d", w, n, prev)
			}
			last[fmt.Sprint(w)] = n
		}
		th, _ := e.GetThread(ctx, "busy")
		if th.LastSeq != int64(writers*each) || th.MessageCount != int64(writers*each) {
			t.Fatalf("thread last_seq %d, count %d", th.LastSeq, th.MessageCount)
		}
	})
}

func TestLargeToolResultStoredByReference(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{Limits: engine.Limits{ToolResultInlineBytes: 100}})
		big := strings.Repeat("row of data, ", 1000)
		_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
			{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "c1", Name: "dump", Arguments: json.RawMessage(`{}`)}}},
			{ID: "res", Role: "tool", ToolCallID: "c1", Content: big},
		}})
		if err != nil {
			t.Fatal(err)
		}
		ms, _ := e.Messages(ctx, "t", 2, 2)
		if !ms[0].Truncated || len(ms[0].Content) > 300 {
			t.Fatalf("inline content %d bytes, truncated=%v", len(ms[0].Content), ms[0].Truncated)
		}
		full, err := e.FullContent(ctx, "res")
		if err != nil || full != big {
			t.Fatalf("full content: %d bytes, %v", len(full), err)
		}
		// Re-sending the same large result is still idempotent.
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", Messages: []engine.Message{{ID: "res", Role: "tool", ToolCallID: "c1", Content: big}}}); err != nil {
			t.Fatal(err)
		}
	})
}

// nested is an object n levels deep: {"a":{"a":…1…}}.
func nested(n int) string {
	return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n)
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
