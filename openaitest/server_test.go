package openaitest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/openaitest"
)

func userMsg(s string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: s}
}

func TestChatScriptedToolCallsThenText(t *testing.T) {
	srv := openaitest.New(t)
	srv.Enqueue(
		openaitest.Calls(openaitest.ToolCall("call_1", "updateWorkingMemory", `{"city":"Porto"}`)),
		openaitest.Text("Noted: Porto."),
	)
	c := srv.Client()
	ctx := context.Background()
	msgs := []openai.ChatCompletionMessage{userMsg("I moved to Porto")}
	resp, err := c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: "m", Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	ch := resp.Choices[0]
	if got, want := ch.FinishReason, openai.FinishReasonToolCalls; got != want {
		t.Fatalf("finish=%q, want %q", got, want)
	}
	if got, want := len(ch.Message.ToolCalls), 1; got != want {
		t.Fatalf("tool calls=%d, want %d", got, want)
	}
	tc := ch.Message.ToolCalls[0]
	if tc.ID != "call_1" || tc.Type != openai.ToolTypeFunction || tc.Function.Name != "updateWorkingMemory" || tc.Function.Arguments != `{"city":"Porto"}` {
		t.Fatalf("tool call = %+v", tc)
	}
	if resp.Model != "m" || resp.ID == "" || resp.Object != "chat.completion" {
		t.Fatalf("response not completed: id=%q object=%q model=%q", resp.ID, resp.Object, resp.Model)
	}
	msgs = append(msgs, ch.Message, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: tc.ID, Content: "ok"})
	resp, err = c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: "m", Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resp.Choices[0].Message.Content, "Noted: Porto."; got != want {
		t.Fatalf("content=%q, want %q", got, want)
	}
	if got, want := resp.Choices[0].FinishReason, openai.FinishReasonStop; got != want {
		t.Fatalf("finish=%q, want %q", got, want)
	}
	if got, want := srv.Count(openaitest.PathChat), 2; got != want {
		t.Fatalf("chat count=%d, want %d", got, want)
	}
	reqs := srv.ChatRequests()
	if got, want := len(reqs[1].Messages), 3; got != want {
		t.Fatalf("second request messages=%d, want %d", got, want)
	}
	if got, want := reqs[1].Messages[2].ToolCallID, "call_1"; got != want {
		t.Fatalf("tool_call_id=%q, want %q", got, want)
	}
	if srv.Pending() != 0 {
		t.Fatalf("pending=%d, want 0", srv.Pending())
	}
	r := srv.Requests()[0]
	if r.Method != http.MethodPost || r.Path != openaitest.PathChat || r.Status != http.StatusOK {
		t.Fatalf("recorded %s %s %d", r.Method, r.Path, r.Status)
	}
	if got, want := r.Header.Get("Authorization"), "Bearer "+openaitest.DefaultAPIKey; got != want {
		t.Fatalf("auth=%q, want %q", got, want)
	}
}

func TestChatFuncSeesRequest(t *testing.T) {
	srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		last := req.Messages[len(req.Messages)-1].Content
		return openaitest.Text("echo: " + last + fmt.Sprintf(" tools=%d", len(req.Tools))).Response, nil
	}))
	tools := []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: "f", Parameters: map[string]any{"type": "object"}}}}
	resp, err := srv.Client().CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model: "m", Messages: []openai.ChatCompletionMessage{userMsg("hi")}, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resp.Choices[0].Message.Content, "echo: hi tools=1"; got != want {
		t.Fatalf("content=%q, want %q", got, want)
	}
}

func TestChatErrors(t *testing.T) {
	srv := openaitest.New(t)
	c := srv.Client()
	ctx := context.Background()
	req := openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{userMsg("x")}}

	t.Run("Status", func(t *testing.T) {
		srv.Enqueue(openaitest.Error(http.StatusTooManyRequests, "slow down"))
		_, err := c.CreateChatCompletion(ctx, req)
		var apiErr *openai.APIError
		if !errors.As(err, &apiErr) {
			t.Fatalf("err=%v, want *openai.APIError", err)
		}
		if got, want := apiErr.HTTPStatusCode, 429; got != want {
			t.Fatalf("status=%d, want %d", got, want)
		}
		if got, want := apiErr.Message, "slow down"; got != want {
			t.Fatalf("message=%q, want %q", got, want)
		}
	})
	t.Run("FuncError", func(t *testing.T) {
		srv.SetChat(func(openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
			return openai.ChatCompletionResponse{}, &openaitest.StatusError{Status: 503, Message: "overloaded"}
		})
		defer srv.SetChat(nil)
		_, err := c.CreateChatCompletion(ctx, req)
		var apiErr *openai.APIError
		if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 503 {
			t.Fatalf("err=%v, want status 503", err)
		}
	})
	t.Run("Malformed", func(t *testing.T) {
		srv.Enqueue(openaitest.Malformed(`{"choices": [`))
		if _, err := c.CreateChatCompletion(ctx, req); err == nil {
			t.Fatal("malformed body decoded without error")
		}
	})
	t.Run("Empty", func(t *testing.T) {
		srv.Enqueue(openaitest.Empty())
		if _, err := c.CreateChatCompletion(ctx, req); err == nil {
			t.Fatal("empty body decoded without error")
		}
	})
	t.Run("Timeout", func(t *testing.T) {
		srv.Enqueue(openaitest.Text("late").WithDelay(5 * time.Second))
		tctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := c.CreateChatCompletion(tctx, req)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err=%v, want deadline exceeded", err)
		}
		if el := time.Since(start); el > 2*time.Second {
			t.Fatalf("took %v: the delay did not honour the client's context", el)
		}
	})
	if v := srv.Violations(); len(v) != 0 {
		t.Fatalf("violations: %v", v)
	}
}

func TestReplyCheck(t *testing.T) {
	srv := openaitest.New(t, openaitest.Lenient())
	srv.Enqueue(openaitest.Text("ok").WithCheck(func(req openai.ChatCompletionRequest) error {
		if len(req.Tools) == 0 {
			return errors.New("no tools offered")
		}
		return nil
	}))
	_, err := srv.Client().CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model: "m", Messages: []openai.ChatCompletionMessage{userMsg("x")}})
	if err == nil || !strings.Contains(err.Error(), "no tools offered") {
		t.Fatalf("err=%v, want the check's message", err)
	}
	if got, want := len(srv.Violations()), 1; got != want {
		t.Fatalf("violations=%d, want %d", got, want)
	}
}

func TestValidateChat(t *testing.T) {
	call := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{
		openaitest.ToolCall("a", "f", "{}"), openaitest.ToolCall("b", "f", "{}")}}
	res := func(id string) openai.ChatCompletionMessage {
		return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: id, Content: "r"}
	}
	sys := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: "s"}
	for _, tc := range []struct {
		name string
		msgs []openai.ChatCompletionMessage
		want string // substring of the error; "" means valid
	}{
		{"OK", []openai.ChatCompletionMessage{sys, userMsg("u"), call, res("b"), res("a"), userMsg("u")}, ""},
		{"OKEndsWithResults", []openai.ChatCompletionMessage{userMsg("u"), call, res("a"), res("b")}, ""},
		{"ErrMissingResult", []openai.ChatCompletionMessage{userMsg("u"), call, res("a"), userMsg("u")}, "without results"},
		{"ErrMissingResultAtEnd", []openai.ChatCompletionMessage{userMsg("u"), call, res("a")}, "without results"},
		{"ErrOrphanResult", []openai.ChatCompletionMessage{userMsg("u"), res("a")}, "does not follow"},
		{"ErrWrongID", []openai.ChatCompletionMessage{userMsg("u"), call, res("a"), res("c")}, `"c" does not answer`},
		{"ErrDuplicateResult", []openai.ChatCompletionMessage{userMsg("u"), call, res("a"), res("a"), res("b")}, `"a" does not answer`},
		{"ErrNoMessages", nil, "messages is empty"},
		{"ErrRole", []openai.ChatCompletionMessage{{Role: "robot", Content: "x"}}, "unknown role"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := openaitest.ValidateChat(openai.ChatCompletionRequest{Model: "m", Messages: tc.msgs})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("err=%v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err=%v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestViolations(t *testing.T) {
	srv := openaitest.New(t, openaitest.Lenient())
	c := srv.Client()
	ctx := context.Background()

	// The real API refuses a tool result without its call: so does the fake.
	_, err := c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{
		userMsg("x"), {Role: openai.ChatMessageRoleTool, ToolCallID: "zz", Content: "r"}}})
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 400 {
		t.Fatalf("orphan tool result: err=%v, want status 400", err)
	}
	// No reply scripted.
	if _, err := c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{userMsg("x")}}); err == nil {
		t.Fatal("unscripted request succeeded")
	}
	// Wrong method, unknown path, bad key, bad body.
	for _, tc := range []struct {
		method, path, key, body string
		want                    int
	}{
		{http.MethodGet, openaitest.PathChat, openaitest.DefaultAPIKey, "", 405},
		{http.MethodPost, "/chat/completions", openaitest.DefaultAPIKey, "{}", 404},
		{http.MethodPost, openaitest.PathChat, "wrong", `{"model":"m","messages":[{"role":"user","content":"x"}]}`, 401},
		{http.MethodPost, openaitest.PathChat, openaitest.DefaultAPIKey, `{not json`, 400},
		{http.MethodPost, openaitest.PathEmbeddings, openaitest.DefaultAPIKey, `{"model":"e","input":[1,2]}`, 400},
	} {
		u := strings.TrimSuffix(srv.URL, "/v1") + tc.path
		req, _ := http.NewRequest(tc.method, u, bytes.NewBufferString(tc.body))
		req.Header.Set("Authorization", "Bearer "+tc.key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s: status=%d, want %d", tc.method, tc.path, resp.StatusCode, tc.want)
		}
	}
	if got, want := len(srv.Violations()), 7; got != want {
		t.Fatalf("violations=%d, want %d: %v", got, want, srv.Violations())
	}
}

// recTB records Errorf calls and runs cleanups on demand, to test that a
// strict server fails the test at cleanup.
type recTB struct {
	testing.TB
	errs     []string
	cleanups []func()
}

func (r *recTB) Helper()          {}
func (r *recTB) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recTB) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestStrictReportsViolationsAtCleanup(t *testing.T) {
	tb := &recTB{TB: t}
	srv := openaitest.New(tb)
	_, _ = srv.Client().CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model: "m", Messages: []openai.ChatCompletionMessage{userMsg("x")}}) // nothing scripted
	for i := len(tb.cleanups) - 1; i >= 0; i-- {
		tb.cleanups[i]()
	}
	if got, want := len(tb.errs), 1; got != want {
		t.Fatalf("errors reported=%d, want %d: %v", got, want, tb.errs)
	}
	if !strings.Contains(tb.errs[0], "no reply is scripted") {
		t.Fatalf("error=%q", tb.errs[0])
	}
}

func TestEmbeddings(t *testing.T) {
	srv := openaitest.New(t)
	c := srv.Client()
	ctx := context.Background()
	in := []string{"the refund was approved", "refund approved", "weather in Lyon"}
	for _, format := range []openai.EmbeddingEncodingFormat{"", openai.EmbeddingEncodingFormatBase64} {
		t.Run("Format"+string(format), func(t *testing.T) {
			resp, err := c.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{Input: in, Model: "e", EncodingFormat: format})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := len(resp.Data), len(in); got != want {
				t.Fatalf("vectors=%d, want %d", got, want)
			}
			for i, d := range resp.Data {
				want := openaitest.HashVector(in[i], openaitest.DefaultDims)
				if d.Index != i || len(d.Embedding) != len(want) {
					t.Fatalf("data[%d]: index=%d dims=%d", i, d.Index, len(d.Embedding))
				}
				var norm float64
				for j := range want {
					if d.Embedding[j] != want[j] {
						t.Fatalf("data[%d][%d]=%v, want %v", i, j, d.Embedding[j], want[j])
					}
					norm += float64(want[j] * want[j])
				}
				if math.Abs(norm-1) > 1e-5 {
					t.Fatalf("norm²=%v, want 1", norm)
				}
			}
			near, _ := resp.Data[0].DotProduct(&resp.Data[1])
			far, _ := resp.Data[0].DotProduct(&resp.Data[2])
			if near <= far {
				t.Fatalf("shared words not closer: near=%v far=%v", near, far)
			}
		})
	}
	got := srv.EmbedRequests()
	if len(got) != 2 || got[1].EncodingFormat != "base64" || len(got[0].Input) != 3 || got[0].Model != "e" {
		t.Fatalf("recorded embed requests = %+v", got)
	}

	t.Run("Dimensions", func(t *testing.T) {
		resp, err := c.CreateEmbeddings(ctx, openai.EmbeddingRequest{Input: "one text", Model: "e", Dimensions: 5})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(resp.Data[0].Embedding), 5; got != want {
			t.Fatalf("dims=%d, want %d", got, want)
		}
	})
	t.Run("Error", func(t *testing.T) {
		srv.SetEmbed(func(openaitest.EmbedRequest) ([][]float32, error) {
			return nil, &openaitest.StatusError{Status: 500, Message: "boom"}
		})
		_, err := c.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{Input: in, Model: "e"})
		var apiErr *openai.APIError
		if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 500 {
			t.Fatalf("err=%v, want status 500", err)
		}
	})
	t.Run("Malformed", func(t *testing.T) {
		srv.SetEmbed(func(openaitest.EmbedRequest) ([][]float32, error) {
			return nil, &openaitest.RawResponse{Body: []byte(`{"data":[{"embedding":"x`)}
		})
		if _, err := c.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{Input: in, Model: "e"}); err == nil {
			t.Fatal("malformed body decoded without error")
		}
	})
	t.Run("Timeout", func(t *testing.T) {
		srv.SetEmbed(openaitest.HashEmbed(4))
		srv.SetEmbedDelay(5 * time.Second)
		defer srv.SetEmbedDelay(0)
		tctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		if _, err := c.CreateEmbeddings(tctx, openai.EmbeddingRequestStrings{Input: in, Model: "e"}); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err=%v, want deadline exceeded", err)
		}
	})
	if got, want := srv.Count(openaitest.PathEmbeddings), 6; got != want {
		t.Fatalf("embeddings count=%d, want %d", got, want)
	}
}

func TestConcurrentRequests(t *testing.T) {
	srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		return openaitest.Text(req.Messages[0].Content).Response, nil
	}))
	c := srv.Client()
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			want := fmt.Sprint("n", i)
			resp, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
				Model: "m", Messages: []openai.ChatCompletionMessage{userMsg(want)}})
			if err == nil && resp.Choices[0].Message.Content != want {
				err = fmt.Errorf("got %q, want %q", resp.Choices[0].Message.Content, want)
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got, want := srv.Count(openaitest.PathChat), 8; got != want {
		t.Fatalf("count=%d, want %d", got, want)
	}
}
