package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

// storedSecrets go through every path that stores text; none may appear in
// any file of the data directory afterwards.
var storedSecrets = map[string]string{
	"content":    "ghp_" + rep("C0nt3ntS3cr3tAbCdEf", 36),
	"name":       "glpat-" + rep("N4m3S3cr3tAbCd", 20),
	"args":       "Args-Pa55word-Zz9",
	"metadata":   "hf_" + rep("M3t4d4t4S3cr3t", 34),
	"title":      "sk_live_" + rep("T1tl3S3cr3t", 24),
	"query":      "eyJhbGciOiJIUzI1NiJ9.eyJxdWVyeSI6InNlY3JldCJ9.Qu3ryS1gn4tur3Abc",
	"wm-tool":    "npm_" + rep("WmT00lS3cr3tX", 36),
	"wm-edit":    "xoxb-1234567890-" + rep("WmEd1tS3cr3t", 24),
	"wm-set":     "AKIAWMSETSECRET12345",
	"observer":   "Ob5erv3r-Pa55w0rd",
	"wm-refused": "glpat-" + rep("R3fus3dS3cr3tAbCd", 20),
	"filter":     "sk_live_" + rep("F1lt3rS3cr3t", 24),
	// The tails of passwords holding '&' (a rule stopped there before).
	"content-pwd": "C0nt3ntPwdTail-Zz9",
	"query-pass":  "Qu3ryPa55Tail-Zz9",
	"args-pass":   "ArgsPassKey-Zz9",
	// walk40 #1: after a JSON escape in a tool result and in arguments,
	// glued to a name by '_'.
	"result-lf":  "ghp_Walk40abcdefghijklmnopqrstuvwxyz0002",
	"args-lf":    "AKIAIOSFODNN7WALK40Q",
	"result-tab": "sk-proj-" + rep("W4lk40T4b", 40),
	"name-glued": "sk-proj-" + rep("W4lk40N4m3", 40),
	// walk41 #1 and sec42: card numbers as JSON numbers, in an array of
	// arguments, in metadata, in a tool result, as a float (the digits of
	// "3530111333300000.0").
	"args-card":     "5555555555554444",
	"metadata-card": "4012888888881881",
	"result-card":   "6011111111111117",
	"result-float":  "3530111333300000",
	// sec42: a password on one line of a tool result's string.
	"result-pwd": "Pa55-Res-Line-Zz9",
	// walk41 #7: escaped tokens in JSON Lines and in a log line's JSON
	// payload (the parts after the escape).
	"result-jsonl": rep("J50nL1n3sT41l", 40),
	"result-log":   rep("L0gL1n3T41lAb", 40),
	// rev43: a value a credential key names that is a list (arguments,
	// an http.Header in a tool result).
	"args-pwlist":   "Pw-List-Zz9-abcd",
	"result-header": "Hdr-Key-Zz9-abcdef",
	// sec42: a key id glued on its right by '_'.
	"right-glued": "AKIAGLUEDRIGHT12345X",
}

// secretObserverModel restates a secret in every observation, as a model
// might (it quotes "password: …" back, with an '&' in it).
func secretObserverModel(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	data := req.Messages[len(req.Messages)-1].Content
	key := "observations"
	if !strings.HasPrefix(data, "<conversation") {
		key = "reflection"
	}
	b, _ := json.Marshal(map[string]any{key: []map[string]any{{
		"text": "The user said their password: Tr0ub&" + storedSecrets["observer"] + " is for the bank.", "seqs": []int64{1}}}})
	return openaitest.Text(string(b)).Response, nil
}

// TestSecretsNeverReachStorage writes a secret through each stored text —
// message content, name, tool-call arguments, metadata, thread title, an
// explicit LoadContext query and recall filter (memctx), working memory through the tool (a
// schema merge, a refused merge whose refusal would quote the value, and a
// template edit) and through a direct set, and an
// observation the model wrote — then reads every file of the data
// directory: no secret is there.
func TestSecretsNeverReachStorage(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		st := be.NewStore(t)
		srv := openaitest.New(t, openaitest.WithChat(secretObserverModel))
		cfg := st.Config(engine.Config{RecentN: 2,
			WorkingMemory: &working.Config{Schema: json.RawMessage(`{"type":"object","properties":{"note":{"type":"string"},"code":{"type":"string","pattern":"^[0-9]+$"}}}`)},
			Observe:       &engine.ObserveConfig{Model: newObserverModel(t, srv), Threshold: 1, ChunkTokens: 10000}})
		e, err := engine.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		s := storedSecrets
		args, _ := json.Marshal(map[string]string{"user": "bob", "password": s["args"], "pass": s["args-pass"]})
		msgs := []engine.Message{
			{Role: engine.RoleUser, Content: "my token is " + s["content"], Metadata: map[string]any{"header": "Authorization: Bearer " + s["metadata"]}},
			{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "c1", Name: "login", Arguments: args}}},
			{Role: engine.RoleTool, ToolCallID: "c1", Name: "login " + s["name"], Content: "ok"},
			{Role: engine.RoleAssistant, Content: "logged in"},
			{Role: engine.RoleUser, Content: "thanks, pwd: 7&7&" + s["content-pwd"]},
			{Role: engine.RoleAssistant, Content: "you are welcome"},
			{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "k1", Name: "shell", Arguments: json.RawMessage(`{"v":"a\n` + s["args-lf"] + `"}`)}}},
			{Role: engine.RoleTool, ToolCallID: "k1", Name: "tool_" + s["name-glued"],
				Content: `{"stdout":"ghp_Walk40abcdefghijklmnopqrstuvwxyz0001\n` + s["result-lf"] + `\n\t` + s["result-tab"] + `","exit":0}`},
			{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "p1", Name: "pay", Arguments: json.RawMessage(`{"cards":[` + s["args-card"] + `]}`)}},
				Metadata: map[string]any{"arr": json.RawMessage(`[` + s["metadata-card"] + `]`)}},
			{Role: engine.RoleTool, ToolCallID: "p1", Name: "pay",
				Content: `{"card": ` + s["result-card"] + `, "n": ` + s["result-float"] + `.0, "log": "password: ` + s["result-pwd"] + `\nok"}`},
			{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "j1", Name: "logs", Arguments: json.RawMessage(`{}`)}}},
			{Role: engine.RoleTool, ToolCallID: "j1", Name: "logs",
				Content: `{"a":1}` + "\n" + `{"k":"sk\u002dproj-` + s["result-jsonl"] + `"}` + "\n" + `2026-12-05 INFO {"k":"glc_ab\/` + s["result-log"] + `"}` + "\nexit 0"},
			{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "h1", Name: "fetch", Arguments: json.RawMessage(`{"password":["` + s["args-pwlist"] + `"]}`)}}},
			{Role: engine.RoleTool, ToolCallID: "h1", Name: "fetch", Content: `{"headers":{"X-Api-Key":["` + s["result-header"] + `"]},"status":200}`},
			{Role: engine.RoleUser, Content: "the old key " + s["right-glued"] + "_backup is revoked"},
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Title: "keys " + s["title"], Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		// The recall filter is recorded in memctx too (a metadata value is caller text).
		filter, _ := json.Marshal(map[string]string{"metadata.header": "Authorization: Bearer " + s["filter"]})
		if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-1", ThreadID: "t", Query: "what about " + s["query"] + " password=Xy9&" + s["query-pass"],
			Recall: &recall.Options{TopK: 2, Filter: filter}}); err != nil {
			t.Fatal(err)
		}
		patch, _ := json.Marshal(map[string]string{"note": "api key " + s["wm-tool"]})
		if m, err := e.HandleToolCall(ctx, "run-1", "t", "r", openaitest.ToolCall("w1", tools.UpdateWorkingMemoryName, string(patch))); err != nil || !strings.Contains(m.Content, `"ok":true`) {
			t.Fatalf("wm tool: %v %+v", err, m)
		}
		// A refused update quotes no secret in the tool result the journal keeps.
		bad, _ := json.Marshal(map[string]string{"code": s["wm-refused"]})
		if m, err := e.HandleToolCall(ctx, "run-1", "t", "r", openaitest.ToolCall("w2", tools.UpdateWorkingMemoryName, string(bad))); err != nil || !strings.Contains(m.Content, `"ok":false`) || strings.Contains(m.Content, s["wm-refused"]) {
			t.Errorf("wm refusal: %v %+v", err, m)
		}
		tmpl, err := e.OpenWorkingMemory(working.Config{Template: "# Notes\n- slack: none\n", Scope: working.ScopeResource})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tmpl.Edit(ctx, working.ResourceKey("r"), "none", s["wm-edit"], working.Origin{}); err != nil {
			t.Fatal(err)
		}
		if _, err := tmpl.Edit(ctx, working.ResourceKey("r"), "absent "+s["wm-edit"], "x", working.Origin{}); !errors.Is(err, working.ErrSearchNotFound) || strings.Contains(err.Error(), s["wm-edit"]) {
			t.Errorf("refusal quotes the secret: %v", err)
		}
		if _, err := tmpl.Set(ctx, working.ResourceKey("r"), "aws "+s["wm-set"], working.Origin{}); err != nil {
			t.Fatal(err)
		}
		res, err := e.Observe(ctx, "t", observe.Options{Force: true, NoReflect: true})
		if err != nil || len(res.Observations) == 0 {
			t.Fatalf("observe: %v %+v", err, res)
		}
		if be.Name == enginetest.Postgres.Name {
			// No data directory: every live row of the schema instead.
			for where, sec := range s {
				if hits := rowsContaining(t, e, sec); len(hits) > 0 {
					t.Errorf("the %s secret is stored in %v", where, hits)
				}
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			return
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		found := 0
		err = filepath.WalkDir(e.Dir(), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			found++
			for where, sec := range s {
				if bytes.Contains(b, []byte(sec)) {
					t.Errorf("the %s secret is stored in %s", where, path)
				}
			}
			return nil
		})
		if err != nil || found == 0 {
			t.Fatalf("walk: %v, %d files", err, found)
		}
	})
}

// TestToolCallNameWithSecretRefused: a function name cannot be redacted, so
// an Append whose tool call is named like a secret is refused and stores
// nothing.
func TestToolCallNameWithSecretRefused(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e, err := engine.Open(ctx, be.Config(t, engine.Config{}))
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		name := "ghp_" + rep("AbCdEfGhIj0123456789", 36)
		_, err = e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
			{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "c1", Name: name, Arguments: json.RawMessage(`{}`)}}}}})
		var ve *engine.ValidationError
		if !errors.Is(err, engine.ErrInvalidInput) || !errors.As(err, &ve) || ve.Field != "toolCalls[0].name" || strings.Contains(err.Error(), name) {
			t.Fatalf("err = %v", err)
		}
		if _, err := e.GetThread(ctx, "t"); !errors.Is(err, engine.ErrThreadNotFound) {
			t.Fatalf("thread stored: %v", err)
		}
	})
}
