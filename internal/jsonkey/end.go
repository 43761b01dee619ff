package jsonkey

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// TrailingError is returned by End when a JSON text goes on past its one
// value with something other than JSON whitespace: {"a":1}} or [1]] or
// {"a":1} x. Offset counts bytes from the text's start, from 0, as
// DeeperThan's does.
type TrailingError struct {
	Offset int64 // of the first byte after the value that is not whitespace
	Byte   byte  // that byte
}

func (e *TrailingError) Error() string {
	return fmt.Sprintf("unexpected data after the JSON value at byte %d", e.Offset)
}

// End returns nil when nothing but JSON whitespace (space, tab, line feed,
// carriage return: RFC 8259) follows the value dec last decoded, reading
// what dec has buffered and then the rest of src, the reader dec was made
// on; else a *TrailingError at the first other byte. An error reading src
// is returned as it is. src is read to its end when it is all whitespace.
//
// dec.More is no such check: it is false before a "}" or "]", so
// {"a":1}} passed it, and Decode reads one value and stops, so a caller
// that checks nothing after it accepts {"a":1} anything.
func End(dec *json.Decoder, src io.Reader) error {
	off := dec.InputOffset()
	r := io.MultiReader(dec.Buffered(), src)
	var buf [512]byte
	for {
		n, err := r.Read(buf[:])
		for _, c := range buf[:n] {
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				return &TrailingError{Offset: off, Byte: c}
			}
			off++
		}
		switch {
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		}
	}
}

// Trailing is End for a JSON text held whole: a *TrailingError when data
// begins with a JSON value followed by anything but whitespace, else nil,
// also when data does not begin with a whole value (a syntax error, its
// decoder's to report).
func Trailing(data []byte) error {
	src := bytes.NewReader(data)
	dec := json.NewDecoder(src)
	var v json.RawMessage
	if dec.Decode(&v) != nil {
		return nil
	}
	return End(dec, src)
}
