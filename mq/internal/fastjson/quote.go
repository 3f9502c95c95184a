package fastjson

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ErrUnterminatedString is QuoteNumericKeys' only error: a string runs to the end of the input.
var ErrUnterminatedString = errors.New("fastjson: unterminated JSON string")

// QuoteNumericKeys rewrites fastjson text into standard JSON by quoting object keys that are
// bare numbers ({0:"a"} → {"0":"a"}); everything else is copied unchanged, so standard JSON
// passes through as is. A number is a key where an object expects one (after '{' or an
// object's ','); strings are copied untouched. It never panics; an unterminated string is
// ErrUnterminatedString (wrapped with its byte position).
func QuoteNumericKeys(in []byte) ([]byte, error) { return quoteKeys(in, false) }

// quoteKeys is QuoteNumericKeys and, with objectKeys, QuoteObjectKeys: one scan that quotes
// a number where an object expects a key and, with objectKeys, an object there too.
func quoteKeys(in []byte, objectKeys bool) ([]byte, error) {
	out := make([]byte, 0, len(in)+16)
	var stack []byte
	expectKey := false
	for i := 0; i < len(in); {
		c := in[i]
		switch {
		case c == '"':
			end, ok := stringEnd(in, i)
			if !ok {
				return nil, fmt.Errorf("%w at byte %d", ErrUnterminatedString, i)
			}
			out = append(out, in[i:end]...)
			i = end
			continue
		case objectKeys && expectKey && c == '{':
			end, ok := objectEnd(in, i)
			if !ok {
				return nil, fmt.Errorf("fastjson: object key at byte %d does not close", i)
			}
			out = appendQuoted(out, in[i:end]) // copied as it is: one linear pass over the input
			i = end
			expectKey = false
			continue
		case c == '{':
			stack = append(stack, c)
			expectKey = true
		case c == '[':
			stack = append(stack, c)
			expectKey = false
		case c == '}' || c == ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			expectKey = false
		case c == ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
		case c == ':':
			expectKey = false
		case expectKey && (c == '-' || '0' <= c && c <= '9'):
			j := i
			for j < len(in) && isNumberByte(in[j]) {
				j++
			}
			out = append(out, '"')
			out = append(out, in[i:j]...)
			out = append(out, '"')
			i = j
			expectKey = false
			continue
		}
		out = append(out, c)
		i++
	}
	return out, nil
}

func isNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// Unmarshal reads data — fastjson text or standard JSON — into v: QuoteNumericKeys, then
// encoding/json's Unmarshal (unknown fields ignored, as fastjson does).
func Unmarshal(data []byte, v any) error {
	std, err := QuoteNumericKeys(data)
	if err != nil {
		return err
	}
	return json.Unmarshal(std, v)
}
