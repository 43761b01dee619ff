package main

import (
	"errors"
	"fmt"

	"github.com/mnemo-go/mnemo/recall"
)

// errNoAPIKey marks a refusal to build an OpenAI-compatible client that
// would call OpenAI's own API (no base URL given) without a key: every
// request would send the conversation there and come back 401. Exit 2,
// before any call.
var errNoAPIKey = errors.New("no API key")

// needKey refuses (errNoAPIKey) a client of what (the observer model, the
// embedder, the re-ranker) with neither a base URL nor a key, naming the
// variables (or mnemo.json members) that give them. A base URL without a
// key (a local server) is allowed.
func needKey(what, baseURL, key, baseName, keyName string) error {
	if baseURL != "" || key != "" {
		return nil
	}
	return fmt.Errorf("%w: %s would send the text to OpenAI's API (%s) with no key: set %s, or %s for another OpenAI-compatible server (a local one needs no key)",
		errNoAPIKey, what, recall.DefaultOpenAIBaseURL, keyName, baseName)
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
