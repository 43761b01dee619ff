package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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

// arrayStart returns a decoder on r, a LoCoMo or LongMemEval file (format
// its name), and the reader it was made on (for arrayEnd), after reading
// the "[" that opens the file's array. A file that begins with a UTF-8
// byte-order mark is a *jsonkey.TextError naming the mark (encoding/json
// said "invalid character 'ï'", read as "must be a JSON array").
func arrayStart(r io.Reader, format string) (*json.Decoder, io.Reader, error) {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(3); bytes.Equal(head, []byte("\uFEFF")) {
		return nil, nil, &jsonkey.TextError{BOM: true}
	}
	dec := json.NewDecoder(br)
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, nil, fmt.Errorf("%s data must be a JSON array", format)
	}
	return dec, br, nil
}

// eachRecord reads the array of a LoCoMo or LongMemEval file (format its
// name) from r, between arrayStart and arrayEnd, and calls record with
// each element's index and value decoded into a T. An element holding
// text that is not valid UTF-8 (checkText) is w's problem "[i]" (skipped,
// or the import's error with Options.Strict) and not decoded; a file that
// is not such an array, or an element that does not decode, is an error
// naming the file (and the element: "importer: FILE: [3]: …").
func eachRecord[T any](w *writer, r io.Reader, format string, record func(i int, v *T) error) error {
	dec, r, err := arrayStart(r, format)
	if err != nil {
		return fmt.Errorf("importer: %s: %w", w.rep.File, err)
	}
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("importer: %s: [%d]: %w", w.rep.File, i, err)
		}
		if err := checkText(raw); err != nil {
			if perr := w.problem(fmt.Sprintf("[%d]", i), err); perr != nil {
				return perr
			}
			continue
		}
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("importer: %s: [%d]: %w", w.rep.File, i, err)
		}
		if err := record(i, &v); err != nil {
			return err
		}
	}
	if err := arrayEnd(dec, r); err != nil {
		return fmt.Errorf("importer: %s: %w", w.rep.File, err)
	}
	return nil
}
