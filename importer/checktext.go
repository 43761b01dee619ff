package importer

// CheckJSONText returns an error wrapping ErrInvalidText, naming the byte
// at fault by its offset counted from 0 ("invalid byte 0xff at byte 55"), when the JSON text b is not valid UTF-8 or a \u escape in it is
// half of a UTF-16 surrogate pair: what encoding/json would turn into
// U+FFFD silently. The HTTP API checks its request bodies with it, as
// Import checks each record. Linear in len(b); nil for valid text.
func CheckJSONText(b []byte) error { return checkText(b) }
