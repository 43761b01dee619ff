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
// (401, 402, 403, 404), ErrInputTooLong for a prompt over the model's
// context (413; a 400 whose code or message says so: contextLengthError),
// ErrRequestRejected for any other 4xx; nil for anything else (a
// transport error, a 5xx, an answer too large). Before, each was a bare
// ErrModel, and the range was sent again at every observation.
func refusal(err error) error {
	status, code, msg := apiStatus(err)
	switch {
	case status < 400 || status >= 500 || retryStatus(status):
		return nil
	case status == http.StatusUnauthorized || status == http.StatusPaymentRequired ||
		status == http.StatusForbidden || status == http.StatusNotFound:
		return ErrModelRefused
	case status == http.StatusRequestEntityTooLarge || contextLengthError(code, msg):
		return ErrInputTooLong
	}
	return ErrRequestRejected
}

// apiStatus is the HTTP status of err, an *openai.APIError or
// *openai.RequestError, with the API error's code and message; 0 for
// any other error.
func apiStatus(err error) (status int, code, msg string) {
	var api *openai.APIError
	if errors.As(err, &api) {
		if api.Code != nil {
			code = fmt.Sprint(api.Code)
		}
		return api.HTTPStatusCode, code, api.Message
	}
	var re *openai.RequestError
	if errors.As(err, &re) {
		return re.HTTPStatusCode, "", string(re.Body)
	}
	return 0, "", ""
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
