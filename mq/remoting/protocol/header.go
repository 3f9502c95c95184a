package protocol

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Errors of header decoding, wrapped with the field name; test with errors.Is. A broker answers
// them with SYSTEM_ERROR, as Java does for a RemotingCommandException.
var (
	// ErrMissingField: a field Java marks @CFNotNull is absent.
	ErrMissingField = errors.New("protocol: required header field missing")
	// ErrBadField: a numeric field that does not parse (Java Integer/Long.parseInt), or a
	// value a header's checkFields rejects.
	ErrBadField = errors.New("protocol: bad header field value")
)

// extReader decodes the string map of extFields into typed fields. The first failure sticks,
// so a decoder reads every field and checks err once. It allocates nothing on success.
//
// Java: RemotingCommand#decodeCommandCustomHeader (String as is; Integer/Long parsed in
// decimal; Boolean by Boolean.parseBoolean, so any text other than "true" in any case is false).
type extReader struct {
	ext map[string]string
	err error
	// labels, when set, names wire keys in errors (the single-letter V2 keys).
	labels map[string]string
}

func (r *extReader) label(key string) string {
	if name, ok := r.labels[key]; ok {
		return strconv.Quote(key) + " (" + name + ")"
	}
	return strconv.Quote(key)
}

func (r *extReader) missing(key string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", ErrMissingField, r.label(key))
	}
}

func (r *extReader) bad(key, value, want string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s=%q is not %s", ErrBadField, r.label(key), value, want)
	}
}

// required returns a required field's text and whether it is there (absent is
// ErrMissingField).
func (r *extReader) required(key string) (string, bool) {
	v, ok := r.ext[key]
	if !ok {
		r.missing(key)
	}
	return v, ok
}

// str returns a required string field.
func (r *extReader) str(key string) string {
	v, _ := r.required(key)
	return v
}

// optStr returns an optional string field ("" when absent).
func (r *extReader) optStr(key string) string { return r.ext[key] }

func (r *extReader) parse32(key, v string) int32 {
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		r.bad(key, v, "an int32")
		return 0
	}
	return int32(n)
}

func (r *extReader) parse64(key, v string) int64 {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		r.bad(key, v, "an int64")
		return 0
	}
	return n
}

// i32 returns a required Integer field.
func (r *extReader) i32(key string) int32 {
	if v, ok := r.required(key); ok {
		return r.parse32(key, v)
	}
	return 0
}

// optI32 returns an optional Integer field and whether it was present.
func (r *extReader) optI32(key string) (int32, bool) {
	if v, ok := r.ext[key]; ok {
		return r.parse32(key, v), true
	}
	return 0, false
}

// i64 returns a required Long field.
func (r *extReader) i64(key string) int64 {
	if v, ok := r.required(key); ok {
		return r.parse64(key, v)
	}
	return 0
}

// optBool returns an optional boolean field (false when absent).
func (r *extReader) optBool(key string) bool {
	return strings.EqualFold(r.ext[key], "true")
}

func itoa32(n int32) string { return strconv.FormatInt(int64(n), 10) }
func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
func btoa(b bool) string    { return strconv.FormatBool(b) }

// putOpt sets key only when v is not empty (Java omits null fields).
func putOpt(ext map[string]string, key, v string) {
	if v != "" {
		ext[key] = v
	}
}
