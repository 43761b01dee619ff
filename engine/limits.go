package engine

// Limits returns the limits e holds requests to: Config.Limits with each
// zero field's default filled in. A server checks a request's counts
// against them before it decodes the request (TooManyMessages,
// TooManyToolCalls), so that an array far past its bound costs a count
// of its elements, not their decoding.
func (e *Engine) Limits() Limits { return e.limits }

// TooManyMessages is the *ValidationError Append returns for a request of
// n messages when n passes l.MaxMessagesPerAppend (field "messages",
// Index -1: "at most 1000 messages per append, got 1001"); nil when n is
// within it. l must have its defaults (Engine.Limits).
func (l Limits) TooManyMessages(n int) error {
	if n <= l.MaxMessagesPerAppend {
		return nil
	}
	return invalid(-1, "messages", "at most %d messages per append, got %d", l.MaxMessagesPerAppend, n)
}

// TooManyToolCalls is the *ValidationError Append returns for message i
// of a request when its n tool calls pass l.MaxToolCalls (field
// "toolCalls", Index i: "at most 128 tool calls, got 129"); nil when n is
// within it. l must have its defaults (Engine.Limits).
func (l Limits) TooManyToolCalls(i, n int) error {
	if n <= l.MaxToolCalls {
		return nil
	}
	return invalid(i, "toolCalls", "at most %d tool calls, got %d", l.MaxToolCalls, n)
}

// MetadataTooLarge is the *ValidationError Append returns for message i
// of a request when its metadata, n bytes encoded as JSON (as stored),
// passes l.MaxMetadataBytes (field "metadata", Index i: "at most 16384
// bytes as JSON, got 16385"); nil when n is within it. l must have its
// defaults (Engine.Limits). A server measures a body's metadata with
// jsonkey.EncodedLen before decoding it.
func (l Limits) MetadataTooLarge(i, n int) error {
	if n <= l.MaxMetadataBytes {
		return nil
	}
	return invalid(i, "metadata", "at most %d bytes as JSON, got %d", l.MaxMetadataBytes, n)
}
