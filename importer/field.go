package importer

import "strings"

// recordFields maps, per format, the engine's name of a message or request
// field (engine.ValidationError.Field, the API's JSON name) to the name the
// format's records give it; a field a format spells as the API does is
// left out.
var recordFields = map[string]map[string]string{
	FormatJSONL: {
		"threadId": "thread", "resourceId": "resource", "toolCalls": "tool_calls",
		"toolCallId": "tool_call_id", "createdAt": "created_at",
	},
	FormatLoCoMo: {
		"threadId": "sample_id", "resourceId": "sample_id", "content": "text", "name": "speaker", "id": "dia_id",
	},
	FormatLongMemEval: {
		"threadId": "question_id", "resourceId": "question_id", "id": "question_id",
	},
}

// recordField returns field (an engine field path such as
// "toolCalls[0].arguments") as a record of format names it
// ("tool_calls[0].arguments"): its first segment renamed, the rest kept.
func recordField(format, field string) string {
	i := strings.IndexAny(field, ".[")
	if i < 0 {
		i = len(field)
	}
	if name, ok := recordFields[format][field[:i]]; ok {
		return name + field[i:]
	}
	return field
}
