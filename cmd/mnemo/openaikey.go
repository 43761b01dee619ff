package main

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/mnemo-go/mnemo/recall"
)

// errNoAPIKey marks a refusal to build an OpenAI-compatible client that
// would call OpenAI's own API (no base URL given) without a key: every
// request would send the conversation there and come back 401. Exit 2,
// before any call.
var errNoAPIKey = errors.New("no API key")

// needKey refuses (errNoAPIKey) a client of what (the observer model, the
// embedder, the re-ranker) that would call OpenAI's own API without a key,
// naming the variables (or mnemo.json members) that give them. OpenAI's
// API is no base URL, or one whose host is api.openai.com (any case, http
// or https, any path); a key of blanks only is no key. A base URL of
// another host without a key (a local server) is allowed. A base URL
// with credentials, a query or a fragment is refused first
// (checkEndpoint, errBadEndpoint).
func needKey(what, baseURL, key, baseName, keyName string) error {
	if err := checkEndpoint(baseName, baseURL, keyName); err != nil {
		return err
	}
	if strings.TrimSpace(key) != "" || (baseURL != "" && !openAIHost(baseURL)) {
		return nil
	}
	api, no := recall.DefaultOpenAIBaseURL, "no key"
	if baseURL != "" {
		api = baseURL
	}
	if key != "" {
		no = "a key of blanks only"
	}
	return fmt.Errorf("%w: %s would send the text to OpenAI's API (%s) with %s: set %s, or %s for another OpenAI-compatible server (a local one needs no key)",
		errNoAPIKey, what, api, no, keyName, baseName)
}

// openAIHost reports whether baseURL names OpenAI's own API: its host is
// api.openai.com, compared without case and a trailing dot. walk44 F5:
// OPENAI_BASE_URL=https://api.openai.com/v1 (or with a slash after it, or
// https://API.OpenAI.com/v1) passed for a local server.
func openAIHost(baseURL string) bool {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil {
		return false
	}
	return strings.EqualFold(strings.TrimSuffix(u.Hostname(), "."), "api.openai.com")
}

// rerankFromEnv is recall.RerankFromEnv, refusing (errNoAPIKey) a
// re-ranker of OpenAI's API with no key.
func rerankFromEnv(getenv func(string) string) (*recall.Rerank, error) {
	if model := getenv(recall.EnvRerankModel); model != "" {
		base := getenv(recall.EnvRerankBaseURL)
		if base == "" {
			base = getenv(recall.EnvOpenAIBaseURL)
		}
		if err := needKey(recall.EnvRerankModel+"="+model, base, getenv(recall.EnvOpenAIAPIKey),
			recall.EnvRerankBaseURL+" (or "+recall.EnvOpenAIBaseURL+")", recall.EnvOpenAIAPIKey); err != nil {
			return nil, err
		}
	}
	return recall.RerankFromEnv(getenv)
}
