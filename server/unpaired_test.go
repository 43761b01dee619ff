package server_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/server"
)

// TestAppendUnpairedResult: an append's answer names, in unpaired, each
// of its tool messages whose toolCallId answers no call of the thread (by
// the pairing rule, which the context then applies: it drops exactly
// those, reason orphan-tool-result), and only those: a result appended in
// a later request than its call is paired. The message is stored all the
// same. Before (walk53), the answer said nothing and the result was lost
// from every prompt unseen. The engine decides (engine.AppendResult's
// Unpaired); the answer words it.
func TestAppendUnpairedResult(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	const (
		user   = `{"role":"user","content":"look it up"}`
		call   = `{"role":"assistant","toolCalls":[{"id":"c1","name":"lookup","arguments":{}}]}`
		result = `{"role":"tool","toolCallId":"c1","name":"lookup","content":"found"}`
		stray  = `{"role":"tool","toolCallId":"c9","name":"lookup","content":"stray"}`
		named  = `{"id":"stray-1","role":"tool","toolCallId":"c9","name":"lookup","content":"stray"}`
	)
	cases := []struct {
		name     string
		requests [][]string // the thread's appends, in order
		want     []int      // indexes the last append's answer names
	}{
		{"SameRequest", [][]string{{user, call, result}}, nil},
		{"LaterRequest", [][]string{{user, call}, {result}}, nil},
		{"LaterRequestAfterOthers", [][]string{{user, call}, {user}, {result}}, nil},
		{"NoSuchCall", [][]string{{user, call, result}, {stray}}, []int{0}},
		{"NoSuchCallInRequest", [][]string{{user, call, stray, result}}, []int{2}},
		{"FirstMessage", [][]string{{stray}}, []int{0}},
		{"AnsweredTwice", [][]string{{user, call, result}, {result}}, []int{0}},
		{"AnsweredTwiceInRequest", [][]string{{user, call, result, result}}, []int{3}},
		// One message given twice (same id) is one orphan, named once
		// (rev57: it was named at both indexes).
		{"SameMessageTwice", [][]string{{user, named, named}}, []int{1}},
	}
	// Past engine.MaxPairLookups lookups in the stored thread, the rest
	// of the request's results go unchecked.
	var strays []string
	var bounded []int
	for i := range engine.MaxPairLookups + 4 {
		strays = append(strays, strings.Replace(stray, "c9", fmt.Sprintf("s%d", i), 1))
		if i < engine.MaxPairLookups {
			bounded = append(bounded, i)
		}
	}
	cases = append(cases, struct {
		name     string
		requests [][]string
		want     []int
	}{"Bounded", [][]string{{user}, strays}, bounded})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			thread := "t-" + strings.ToLower(c.name)
			path := "/v1/threads/" + thread + "/messages"
			// Decoded as a client reads it (not server.AppendResult).
			type answer struct {
				Unpaired []struct {
					Index      int    `json:"index"`
					ToolCallID string `json:"toolCallId"`
					Detail     string `json:"detail"`
				} `json:"unpaired"`
				UnpairedUnchecked *int `json:"unpairedUnchecked"`
			}
			var got answer
			for _, msgs := range c.requests {
				body := `{"resourceId":"res-bob","messages":[` + strings.Join(msgs, ",") + `]}`
				got = answer{}
				h.ok("POST", "/v1/threads/{thread}/messages", path, bobToken, body, 200).decode(t, &got)
			}
			var idx []int
			for _, u := range got.Unpaired {
				idx = append(idx, u.Index)
				if u.ToolCallID == "" || !strings.Contains(u.Detail, "orphan-tool-result") {
					t.Errorf("unpaired %+v: want its toolCallId and a detail naming orphan-tool-result", u)
				}
			}
			if !equalInts(idx, c.want) {
				t.Fatalf("unpaired at %v, want %v (answer %+v)", idx, c.want, got)
			}
			// The results past the bound are counted (pair60: the answer
			// did not say the check was incomplete); absent when none is.
			if c.name == "Bounded" {
				if got.UnpairedUnchecked == nil || *got.UnpairedUnchecked != 4 {
					t.Fatalf("unpairedUnchecked %v, want 4 (20 strays, 16 lookups)", got.UnpairedUnchecked)
				}
				return // the context drops all 20; the answer names 16
			}
			if got.UnpairedUnchecked != nil {
				t.Fatalf("unpairedUnchecked %d, want it absent (every result checked)", *got.UnpairedUnchecked)
			}
			ctx := h.ok("POST", "/v1/context", "/v1/context", bobToken, `{"threadId":"`+thread+`"}`, 200)
			if orphans := strings.Count(string(ctx.body), `"orphan-tool-result"`); orphans != len(c.want) {
				t.Fatalf("the context dropped %d orphan results, the append named %d: %s", orphans, len(c.want), ctx.body)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
