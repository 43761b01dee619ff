package engine_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// edgeTokens are one token of each rule that recognises a token by its
// prefix (the vendor rules and jwt).
var edgeTokens = []struct{ rule, token string }{
	{"jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"},
	{"api-key/openai", "sk-proj-" + rep("Xy12", 40)},
	{"api-key/anthropic", "sk-ant-api03-" + rep("aB3-", 60)},
	{"stripe", "sk_live_" + rep("4eC39HqLyjWDarjtT1zdp7dc", 24)},
	{"stripe-webhook-secret", "whsec_" + rep("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", 32)},
	{"aws-access-key-id", "AKIAIOSFODNN7WALK40Q"},
	{"github-token", "ghp_" + rep("16C7e42F292c6912E7710c838347Ae178B4a", 36)},
	{"github-token/fine", "github_pat_11ABCDEFG0" + rep("abcdefghij_KLMNOP", 70)},
	{"gitlab-token", "glpat-" + rep("xR7vzQ2-kL9mN4pT6wY8", 20)},
	{"huggingface-token", "hf_" + rep("kOyTpzHjUsRwYbQnXvLmCgEdFa", 34)},
	{"npm-token", "npm_" + rep("aBcD1234eFgH5678", 36)},
	{"pypi-token", "pypi-AgEIcHlwaS5vcmc" + rep("CJDg4NzQ2ZjE0LTc3", 70)},
	{"slack-token", "xoxb-1234567890-1234567890123-" + rep("AbCdEfGhIjKl", 24)},
	{"slack-token/app", "xapp-1-A0123456789-1234567890123-" + rep("abc123def456", 64)},
	{"google-api-key", "AIza" + rep("SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", 35)},
	{"google-oauth/secret", "GOCSPX-" + rep("1a2B3c4D5e6F7g8H9i0J", 28)},
	{"google-oauth/access", "ya29." + rep("a0AfH6SMBx", 60)},
	{"google-oauth/refresh", "1//0" + rep("gAbCdEfGhIj0123456789", 40)},
	{"sendgrid", "SG." + rep("ngeVfQFYQlKU0ufo8x5d1A", 22) + "." + rep("TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr", 43)},
	{"shopify", "shpat_" + rep("0123456789abcdef", 32)},
	{"digitalocean", "dop_v1_" + rep("0123456789abcdef", 64)},
	{"databricks", "dapi" + rep("0123456789abcdef", 32)},
	{"atlassian", "ATATT3xFfGF0" + rep("T5nb6-AbCd_EfGh", 60)},
	{"square", "sq0atp-" + rep("AbCdEfGhIjKl", 22)},
	{"grafana/cloud", "glc_" + rep("eyJvIjoiMTIzNDU2NyIsIm4iOiJ0", 60)},
	{"grafana/sa", "glsa_" + rep("AbCdEfGhIjKlMnOp", 32) + "_0a1b2c3d"},
	{"docker-hub", "dckr_pat_" + rep("AbC-dEf_GhI", 27)},
	{"doppler", "dp.pt." + rep("AbCdEfGhIj0123456789", 43)},
	{"postman", "PMAK-" + rep("0123456789ab", 24) + "-" + rep("abcdef0123456789", 34)},
	{"linear", "lin_api_" + rep("AbCdEfGhIj0123456789", 40)},
	{"notion", "ntn_" + rep("AbCdEfGhIj0123456789", 46)},
	{"notion/secret", "secret_" + rep("AbCdEfGhIj0123456789", 43)},
	{"mailchimp", rep("0123456789abcdef", 32) + "-us6"},
	{"llm-provider-key/groq", "gsk_" + rep("AbCdEfGhIj0123456789", 52)},
	{"llm-provider-key/xai", "xai-" + rep("AbCdEfGhIj0123456789", 80)},
	{"llm-provider-key/replicate", "r8_" + rep("AbCdEfGhIj0123456789", 37)},
	{"llm-provider-key/perplexity", "pplx-" + rep("AbCdEfGhIj0123456789", 48)},
	{"sentry", "sntrys_" + rep("eyJpYXQiOjE3MDAwMDAwMDAuMCwidXJsIjoi", 80)},
	{"vault-token", "hvs." + rep("CAESIJlU7n_AbCdEf", 90)},
	{"terraform-cloud", "AbCdEfGhIjKlMn.atlasv1." + rep("AbCdEfGhIj0123456789_-", 67)},
	{"heroku", "HRKU-AA" + rep("AbCdEfGhIj0123456789_-", 58)},
	{"newrelic", "NRAK-" + rep("ABCDEFGHIJ0123456789", 27)},
	{"age-secret-key", "AGE-SECRET-KEY-1" + rep("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)},
	{"azure-ad-client-secret", "abc8Q~" + rep("AbCdEfGhIj0123456789_~.", 34)},
	{"mapbox-secret", "sk.eyJ1IjoibWFwYm94In0." + rep("AbCdEfGhIj0123456789", 22)},
}

// edgeShapes are what stands right before a token in JSON text: the JSON
// escapes (a token on a line of its own follows "\n") and a word glued to
// it by '_'.
var edgeShapes = []string{`\n`, `\t`, `\r`, `\"`, `\/`, `\\`, `\u000a`, `_`, `OPENAI_KEY_`}

// secretPart is a piece from the middle of a token that must not survive.
func secretPart(tok string) string { return tok[len(tok)/2:][:8] }

// TestRedactTokenAfterJSONEscape: a vendor token after a JSON escape or a
// '_' is redacted in a tool result that is a JSON document, and in JSON
// text that is not one document (two JSON lines), where only the rules'
// left edge sees it. walk40 #1: {"stdout":"ghp_…1\nghp_…2\n"} kept the
// second token, as the rules began with \b.
func TestRedactTokenAfterJSONEscape(t *testing.T) {
	r := engine.DefaultRedactor()
	for _, tk := range edgeTokens {
		for _, sh := range edgeShapes {
			doc := `{"stdout":"line one` + sh + tk.token + `\nend","exit":0}`
			for _, text := range []string{doc, `{"seq":1}` + "\n" + doc} {
				got := r.Redact(text)
				if strings.Contains(got, secretPart(tk.token)) || !strings.Contains(got, "line one") || !strings.Contains(got, `\nend`) {
					t.Errorf("%s after %s: %s\n  redacted to %s", tk.rule, sh, text, got)
				}
				if text == doc && !json.Valid([]byte(got)) {
					t.Errorf("%s after %s: not JSON after redaction: %s", tk.rule, sh, got)
				}
			}
		}
	}
}

// TestRedactDecodedJSONStrings: a token that an escape inside it hides from
// the text rules is redacted in a JSON document's strings decoded, and a
// document holding escapes and no secret is kept byte for byte.
func TestRedactDecodedJSONStrings(t *testing.T) {
	r := engine.DefaultRedactor()
	glc := rep("eyJvIjoiMTIzNDU2Ny/sIm4iOiJ0", 60)
	for _, c := range []struct{ text, secret string }{
		{`{"k":"sk\u002dproj-` + rep("Xy12", 40) + `"}`, rep("Xy12", 40)},
		{`["x", {"k":"\u0067hp_` + rep("16C7e42F292c6912E7710c838347Ae178B4a", 36) + `"}]`, "16C7e42F292c6912E7710c838"},
		{`{"out":"glc_` + strings.ReplaceAll(glc, "/", `\/`) + `"}`, "Ny\\/sIm4iOiJ0"},
	} {
		got := r.Redact(c.text)
		if strings.Contains(got, c.secret) || !json.Valid([]byte(got)) || !strings.Contains(got, engine.RedactionMark) {
			t.Errorf("%s\n  redacted to %s", c.text, got)
		}
	}
	for _, keep := range []string{
		`{"b" : "caf\u00e9\n\/path\\x\ttab",  "a":[1, "\"q\""]}`,
		`[{"stdout":"total 0\nREADME.md\n"}]`,
		`{"note":"a\nb"} trailing text`,
	} {
		if got := r.Redact(keep); got != keep {
			t.Errorf("changed without a secret:\n  %s\n  -> %s", keep, got)
		}
	}
}

// TestRedactGluedTokenNoFalsePositives: the '_' edge takes a token glued
// to a name, not a name that merely holds a prefix.
func TestRedactGluedTokenNoFalsePositives(t *testing.T) {
	r := engine.DefaultRedactor()
	for _, s := range []string{
		"pip install scikit-learn; import test_sk-short",
		"orders_pk-idx",
		"use_hf_transfer=1",
		"x_ghp_short_name",
		"MY_AKIA_NOTE",
		`{"msg":"line\nsk-learn is a library\tskill-based-routing"}`,
		`{"file":"C:\\tmp\\npm_cache"}`,
		"the_secret_of_the_old_house_is_in_the_attic",
	} {
		if got := r.Redact(s); got != s {
			t.Errorf("false positive:\n  %q\n  -> %q", s, got)
		}
	}
}

// TestAppendTokenAfterJSONEscape stores every edge token after every edge
// shape in tool-call arguments and in a tool result and in a tool
// message's name, and reads none of them back.
func TestAppendTokenAfterJSONEscape(t *testing.T) {
	ctx := t.Context()
	e := enginetest.MustOpen(t, engine.Config{})
	for si, sh := range edgeShapes {
		var msgs []engine.Message
		var calls []engine.ToolCall
		for ti, tk := range edgeTokens {
			id := fmt.Sprintf("c%d_%d", si, ti)
			calls = append(calls, engine.ToolCall{ID: id, Name: "shell", Arguments: json.RawMessage(`{"cmd":"cat t` + sh + tk.token + `"}`)})
			msgs = append(msgs, engine.Message{Role: engine.RoleTool, ToolCallID: id, Name: "tool_" + tk.token,
				Content: `{"stdout":"` + tk.token + `\nword` + sh + tk.token + `\n","exit":0}`})
		}
		msgs = append([]engine.Message{{Role: engine.RoleAssistant, ToolCalls: calls}}, msgs...)
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
			t.Fatalf("after %s: %v", sh, err)
		}
	}
	ms, err := e.Messages(ctx, "t", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(ms)
	for _, tk := range edgeTokens {
		if strings.Contains(string(b), secretPart(tk.token)) {
			t.Errorf("%s stored", tk.rule)
		}
	}
	if len(ms) != len(edgeShapes)*(len(edgeTokens)+1) {
		t.Fatalf("%d messages stored", len(ms))
	}
}

// TestRedactTokenGluedRight: a token whose characters exclude '_' is
// redacted when a word is glued to it on the right by '_' (AKIA…_old),
// the '_' and the word kept, and so are two such tokens glued together;
// a fixed-length AWS key id followed by one more key character is no key.
// Before, these rules ended in \b, which a '_' after the token is not.
// Tokens whose characters include '_' (Google API keys, SendGrid) still
// end at a word's end: the glued word cannot be told from the token.
func TestRedactTokenGluedRight(t *testing.T) {
	glued := map[string]bool{"aws-access-key-id": true, "huggingface-token": true, "npm-token": true, "shopify": true,
		"digitalocean": true, "databricks": true, "grafana/sa": true, "postman": true, "linear": true, "notion": true,
		"notion/secret": true, "mailchimp": true, "llm-provider-key/groq": true, "llm-provider-key/xai": true,
		"llm-provider-key/replicate": true, "llm-provider-key/perplexity": true, "newrelic": true, "age-secret-key": true}
	r := engine.DefaultRedactor()
	m := engine.RedactionMark
	n := 0
	for _, c := range edgeTokens {
		if !glued[c.rule] {
			continue
		}
		n++
		for in, want := range map[string]string{
			c.token + "_old":                       m + "_old",
			"key " + c.token + "_" + c.token + ".": "key " + m + "_" + m + ".",
		} {
			if got := r.Redact(in); got != want {
				t.Errorf("%s: Redact(%q)\n got %q\nwant %q", c.rule, in, got, want)
			}
		}
	}
	if n != len(glued) {
		t.Fatalf("%d of %d rules found in edgeTokens", n, len(glued))
	}
	for _, keep := range []string{"AKIAIOSFODNN7WALK40QX_old", "AIza" + rep("SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", 35) + "_old"} {
		if got := r.Redact(keep); got != keep {
			t.Errorf("Redact(%q) = %q, want it kept", keep, got)
		}
	}
}
