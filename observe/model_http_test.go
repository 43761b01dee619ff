package observe_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

// newScripted returns a model over a fake endpoint answering replies in
// turn, with 4 attempts and limit as MaxResponseBytes.
func newScripted(t *testing.T, limit int64, replies ...openaitest.Reply) (*openaitest.Server, *observe.OpenAIModel) {
	t.Helper()
	srv := openaitest.New(t)
	srv.Enqueue(replies...)
	m, err := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: srv.URL, APIKey: openaitest.DefaultAPIKey, Model: "m",
		Backoff: time.Millisecond, Attempts: 4, MaxResponseBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	return srv, m
}

// An answer body over MaxResponseBytes fails at once, naming the limit,
// and is not retried.
func TestOpenAIModelResponseTooLarge(t *testing.T) {
	big := openaitest.Text(strings.Repeat("x", 64<<10))
	srv, m := newScripted(t, 16<<10, big, big, big, big)
	_, err := m.Complete(ctx, observe.Prompt{System: "s", User: "u"})
	var tl *observe.ResponseTooLargeError
	if !errors.Is(err, observe.ErrModel) || !errors.As(err, &tl) || tl.Limit != 16<<10 || !strings.Contains(err.Error(), "larger than 16384 bytes") {
		t.Fatalf("err = %v, want ErrModel wrapping a ResponseTooLargeError of 16384 bytes", err)
	}
	if n := srv.Count(openaitest.PathChat); n != 1 {
		t.Fatalf("requests=%d, want 1 (not retried)", n)
	}
	// Within the bound, the same answer is read whole.
	_, m2 := newScripted(t, 0, big)
	if got, err := m2.Complete(ctx, observe.Prompt{System: "s", User: "u"}); err != nil || len(got) != 64<<10 {
		t.Fatalf("answer under the default bound: %d bytes, %v", len(got), err)
	}
}

// A successful answer that is an HTML page fails at once, saying the
// endpoint answered non-JSON, with its content type and first bytes.
func TestOpenAIModelNonJSONAnswer(t *testing.T) {
	page := openaitest.Reply{Raw: []byte("\n<!DOCTYPE html><html><body>Sign in to the proxy</body></html>"), ContentType: "text/html; charset=utf-8"}
	srv, m := newScripted(t, 0, page, page, page, page)
	_, err := m.Complete(ctx, observe.Prompt{System: "s", User: "u"})
	var nj *observe.NotJSONError
	if !errors.Is(err, observe.ErrModel) || !errors.As(err, &nj) || !strings.Contains(err.Error(), "answered non-JSON") ||
		!strings.Contains(err.Error(), `"text/html; charset=utf-8"`) || !strings.Contains(err.Error(), "<!DOCTYPE html>") {
		t.Fatalf("err = %v, want ErrModel wrapping a NotJSONError", err)
	}
	if n := srv.Count(openaitest.PathChat); n != 1 {
		t.Fatalf("requests=%d, want 1 (not retried)", n)
	}
}
