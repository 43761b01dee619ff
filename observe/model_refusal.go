package observe

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// refusal is the kind of an HTTP 4xx error of the endpoint that is not
// retried (retryStatus): ErrModelRefused for the key, quota or model
// (401, 402, 404, and a 403 that does not speak of the content),
// ErrContentRefused for a request whose content a filter or moderation
// refused (any other 4xx whose body says so: contentRefusal),
// ErrInputTooLong for a prompt over the model's context (413; a 400 whose
// code or message says so: contextLengthError), ErrRequestRejected for
// any other 4xx; nil for anything else (a transport error, a 5xx, an
// answer too large). Before, each was a bare ErrModel, and the range was
// sent again at every observation; and a 403 of moderation (OpenRouter's
// for a flagged input) backed off every thread's calls (rev65).
func refusal(err error) error {
	f := apiFault(err)
	switch {
	case f.status < 400 || f.status >= 500 || retryStatus(f.status):
		return nil
	case f.status == http.StatusUnauthorized || f.status == http.StatusPaymentRequired ||
		f.status == http.StatusNotFound:
		return ErrModelRefused
	case contentRefusal(f):
		return ErrContentRefused
	case f.status == http.StatusForbidden:
		return ErrModelRefused
	case f.status == http.StatusRequestEntityTooLarge || contextLengthError(f.code, f.msg):
		return ErrInputTooLong
	}
	return ErrRequestRejected
}

// fault is what an error body of the endpoint says: the HTTP status,
// error.code (a number written in decimal), error.type, Azure's
// error.innererror.code, and error.message (the raw body when it was not
// an OpenAI error object).
type fault struct {
	status                int
	code, typ, inner, msg string
}

// apiFault is the fault of err, an *openai.APIError or
// *openai.RequestError; the zero fault for any other error.
func apiFault(err error) fault {
	var api *openai.APIError
	if errors.As(err, &api) {
		f := fault{status: api.HTTPStatusCode, typ: api.Type, msg: api.Message}
		if api.Code != nil {
			f.code = fmt.Sprint(api.Code)
		}
		if api.InnerError != nil {
			f.inner = api.InnerError.Code
		}
		return f
	}
	var re *openai.RequestError
	if errors.As(err, &re) {
		return fault{status: re.HTTPStatusCode, msg: string(re.Body)}
	}
	return fault{}
}

// contentCodes are the error.code, error.type or innererror.code values
// with which OpenAI-compatible endpoints refuse a request for its
// content: Azure OpenAI's content_filter (a 400, innererror.code
// ResponsibleAIPolicyViolation), OpenAI's invalid_prompt ("your prompt
// was flagged as potentially violating our usage policy", a 400) and
// content_policy_violation, OpenRouter's content_policy_violation (a 403).
var contentCodes = []string{"content_filter", "content_policy_violation", "invalid_prompt", "responsibleaipolicyviolation"}

// contentPhrases are what their messages say of a refused content, lower
// case: OpenRouter's 403 "… requires moderation … your input was flagged
// for …", OpenAI's "flagged as potentially violating our usage policy",
// Azure's "… triggering Azure OpenAI's content management policy", and a
// gateway's guardrail ("request blocked by guardrail …").
var contentPhrases = []string{"flagged", "moderation", "content filter", "content_filter", "content management policy", "content policy", "guardrail"}

// contentRefusal reports whether f says the endpoint refused this
// request for its content (a filter or moderation), not the key, quota or
// model: by its codes (contentCodes) or its message (contentPhrases).
// Such a refusal is the prompt's, not every call's.
func contentRefusal(f fault) bool {
	for _, c := range []string{f.code, f.typ, f.inner} {
		for _, want := range contentCodes {
			if strings.EqualFold(c, want) {
				return true
			}
		}
	}
	msg := strings.ToLower(f.msg)
	for _, p := range contentPhrases {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// contextPhrases are what OpenAI-compatible servers say of a prompt over
// the context, lower case: OpenAI's and vLLM's "maximum context length",
// llama.cpp's "exceeds the available context size", others' "context
// window" and "prompt is too long".
var contextPhrases = []string{"context length", "context_length", "context size", "context window", "prompt is too long"}

// contextLengthError reports whether an API error's code or message says
// the prompt is over the model's context (OpenAI's code
// context_length_exceeded).
func contextLengthError(code, msg string) bool {
	if code == "context_length_exceeded" {
		return true
	}
	msg = strings.ToLower(msg)
	for _, p := range contextPhrases {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
