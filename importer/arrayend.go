package importer

import (
	"encoding/json"
	"errors"
	"io"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// arrayEnd reads the "]" that closes the top-level array of a LoCoMo or
// LongMemEval file once dec.More is false after its last record, and then
// checks that nothing but whitespace follows (jsonkey.End; r is the
// reader dec was made on). dec.More is false before a "}" or "]" and at
// the end of the input, so without it a stray bracket after the array, a
// second array, and a file cut short after a record were read as whole.
func arrayEnd(dec *json.Decoder, r io.Reader) error {
	t, err := dec.Token()
	switch {
	case errors.Is(err, io.EOF):
		return errors.New(`the JSON array has no closing "]" (is the file cut short?)`)
	case err != nil:
		return err // "invalid character '}' after array element"
	case t != json.Delim(']'):
		return errors.New(`the JSON array does not end with "]"`) // dec.More was false: not reached
	}
	return jsonkey.End(dec, r)
}
