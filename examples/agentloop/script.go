package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/tools"
)

// The scripted model's patterns over user turns.
var (
	reIntro   = regexp.MustCompile(`(?i)i'?m (\w+) and i live in (\w+)`)
	reMove    = regexp.MustCompile(`(?i)mov(?:ed|ing) to (\w+)`)
	reRemind  = regexp.MustCompile(`(?i)remind me to ([^.!?]+)`)
	reDone    = regexp.MustCompile(`(?i)\b(?:booked|did|done)\b.*?\b(\w+)[.!]*$`)
	reWhere   = regexp.MustCompile(`(?i)where do i live`)
	reWMBlock = regexp.MustCompile(`(?s)<working_memory[^>]*>\n(.*?)\n</working_memory>`)
	reEmail   = regexp.MustCompile(`(?i)e-?mail (\w+) that ([^.!?]+)`)
	reDidMail = regexp.MustCompile(`(?i)did the e-?mail .*go out`)
)

// ScriptedModel is the offline model behind --offline: an
// OpenAI-compatible responder (for openaitest) that plays the built-in
// Script the way a model would. It reads its working memory from the system
// message, records what the user says with updateWorkingMemory (sending
// only the changed fields, and whole lists), acknowledges tool results, and
// answers questions from the memory. It refuses a request that does not
// offer the tool, as a strict API would refuse an unknown tool.
func ScriptedModel(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	if !slices.ContainsFunc(req.Tools, func(t openai.Tool) bool {
		return t.Function != nil && t.Function.Name == tools.UpdateWorkingMemoryName
	}) {
		return openai.ChatCompletionResponse{}, &openaitest.StatusError{Status: http.StatusBadRequest,
			Message: "scripted model: the request offers no " + tools.UpdateWorkingMemoryName + " tool"}
	}
	mem := memoryOf(req.Messages)
	last := req.Messages[len(req.Messages)-1]
	if ans, ok := emailTurn(req.Messages); ok {
		return ans, nil
	}
	if last.Role == openai.ChatMessageRoleTool {
		var res struct {
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		}
		json.Unmarshal([]byte(last.Content), &res)
		if !res.OK {
			return openaitest.Text("I could not note that: " + res.Error).Response, nil
		}
		return openaitest.Text(acknowledge(mem, lastPatch(req.Messages))).Response, nil
	}
	user := last.Content
	patch := map[string]any{}
	if m := reIntro.FindStringSubmatch(user); m != nil {
		patch["name"], patch["city"] = m[1], m[2]
	}
	if m := reMove.FindStringSubmatch(user); m != nil {
		patch["city"] = m[1]
	}
	if m := reRemind.FindStringSubmatch(user); m != nil {
		// A list is replaced whole: send the old items plus the new one.
		patch["todo"] = append(slices.Clone(mem.Todo), strings.TrimSpace(m[1]))
	}
	if m := reDone.FindStringSubmatch(user); m != nil && len(patch) == 0 {
		word := strings.ToLower(m[1])
		left := slices.DeleteFunc(slices.Clone(mem.Todo), func(s string) bool { return strings.Contains(strings.ToLower(s), word) })
		if len(left) < len(mem.Todo) {
			if len(left) == 0 {
				patch["todo"] = nil // null deletes the field
			} else {
				patch["todo"] = left
			}
		}
	}
	if len(patch) > 0 {
		args, _ := json.Marshal(patch)
		id := fmt.Sprintf("call_%d", len(req.Messages))
		return openaitest.Calls(openaitest.ToolCall(id, tools.UpdateWorkingMemoryName, string(args))).Response, nil
	}
	if reWhere.MatchString(user) {
		if mem.City == "" {
			return openaitest.Text("You haven't told me yet.").Response, nil
		}
		return openaitest.Text(fmt.Sprintf("You live in %s.", mem.City)).Response, nil
	}
	return openaitest.Text("(I am a scripted model and only know the built-in script.)").Response, nil
}

// memoryOf reads the working memory from the system message.
func memoryOf(msgs []openai.ChatCompletionMessage) Profile {
	var p Profile
	for _, m := range msgs {
		if m.Role != openai.ChatMessageRoleSystem {
			continue
		}
		if b := reWMBlock.FindStringSubmatch(m.Content); b != nil {
			json.Unmarshal([]byte(b[1]), &p)
		}
	}
	return p
}

// lastPatch is the arguments of the newest updateWorkingMemory call.
func lastPatch(msgs []openai.ChatCompletionMessage) map[string]any {
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, tc := range msgs[i].ToolCalls {
			if tc.Function.Name == tools.UpdateWorkingMemoryName {
				var p map[string]any
				json.Unmarshal([]byte(tc.Function.Arguments), &p)
				return p
			}
		}
	}
	return nil
}

// acknowledge is the answer after a successful update; mem is the memory
// after it (this request's system message), patch what was sent.
func acknowledge(mem Profile, patch map[string]any) string {
	_, name := patch["name"]
	todo, hasTodo := patch["todo"]
	switch {
	case name:
		return fmt.Sprintf("Nice to meet you, %s! I'll remember that you live in %s.", mem.Name, mem.City)
	case hasTodo && todo == nil:
		return "Great, I've crossed that off your list."
	case hasTodo:
		return fmt.Sprintf("Noted: you now live in %s, and I'll remind you to %s.", mem.City, mem.Todo[len(mem.Todo)-1])
	default:
		return "Noted."
	}
}

// emailTurn plays the send_email part of the script: a request to e-mail
// someone becomes a send_email call, its result an acknowledgement, and a
// question whether it went out is answered from the tool result in the
// history — cautiously when the outcome is unknown.
func emailTurn(msgs []openai.ChatCompletionMessage) (openai.ChatCompletionResponse, bool) {
	last := msgs[len(msgs)-1]
	switch {
	case last.Role == openai.ChatMessageRoleUser && reEmail.MatchString(last.Content):
		m := reEmail.FindStringSubmatch(last.Content)
		args, _ := json.Marshal(map[string]string{"to": m[1], "body": strings.TrimSpace(m[2])})
		id := fmt.Sprintf("call_%d", len(msgs))
		return openaitest.Calls(openaitest.ToolCall(id, "send_email", string(args))).Response, true
	case last.Role == openai.ChatMessageRoleTool && callName(msgs, last.ToolCallID) == "send_email":
		return openaitest.Text("Done: the e-mail is " + last.Content + ".").Response, true
	case last.Role == openai.ChatMessageRoleUser && reDidMail.MatchString(last.Content):
		for i := len(msgs) - 1; i >= 0; i-- {
			m := msgs[i]
			if m.Role != openai.ChatMessageRoleTool || callName(msgs, m.ToolCallID) != "send_email" {
				continue
			}
			switch {
			case strings.Contains(m.Content, "Outcome unknown"):
				return openaitest.Text("I can't confirm it: I started sending that e-mail but its outcome was never recorded. I won't send it again until we have checked whether it went out.").Response, true
			case strings.HasPrefix(m.Content, "Error"):
				return openaitest.Text("No, it failed: " + m.Content).Response, true
			}
			return openaitest.Text("Yes, it was sent.").Response, true
		}
		return openaitest.Text("I have not sent any e-mail.").Response, true
	}
	return openai.ChatCompletionResponse{}, false
}

// callName is the name of the tool call callID in msgs.
func callName(msgs []openai.ChatCompletionMessage, callID string) string {
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			if tc.ID == callID {
				return tc.Function.Name
			}
		}
	}
	return ""
}
