package remoting

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON header (serialize type 0) is one object:
//
//	{"code":10,"language":"JAVA","version":409,"opaque":7,"flag":0,"remark":"...","extFields":{"topic":"T"}}
//
// We write code, language, version, opaque and flag always, remark only when non-empty and
// extFields only when non-empty (keys sorted, values strings) — what Java's fastjson writes for
// a null remark/map. We read any field order, unknown keys (skipped, whatever their value),
// null for remark/extFields, and any JSON scalar as an extFields value, kept in its string form
// (`"queueId":0` → "0", `"batch":false` → "false"; null values are dropped as fastjson does).
// Java: RemotingSerializable#encode / #decode (fastjson) on RemotingCommand.
//
// Deviation: Java also writes "serializeTypeCurrentRPC":"JSON"; we leave it out (informational,
// ignored by every decoder, and bytes on the hot path).

// appendJSONHeader appends c's JSON header to dst. No allocation for up to 32 extFields.
func appendJSONHeader(dst []byte, c *RemotingCommand) []byte {
	dst = append(dst, `{"code":`...)
	dst = strconv.AppendInt(dst, int64(c.Code), 10)
	dst = append(dst, `,"language":`...)
	lang := c.Language
	if lang == "" {
		lang = LanguageJava
	}
	dst = appendJSONString(dst, lang)
	dst = append(dst, `,"version":`...)
	dst = strconv.AppendInt(dst, int64(c.Version), 10)
	dst = append(dst, `,"opaque":`...)
	dst = strconv.AppendInt(dst, int64(c.Opaque), 10)
	dst = append(dst, `,"flag":`...)
	dst = strconv.AppendInt(dst, int64(c.Flag), 10)
	if c.Remark != "" {
		dst = append(dst, `,"remark":`...)
		dst = appendJSONString(dst, c.Remark)
	}
	if len(c.ExtFields) > 0 {
		dst = append(dst, `,"extFields":{`...)
		var arr [32]extField
		for i, f := range sortedFields(c.ExtFields, arr[:0]) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, f.k)
			dst = append(dst, ':')
			dst = appendJSONString(dst, f.v)
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// extField is one extFields member.
type extField struct{ k, v string }

// sortedFields appends m's members to buf in ascending key order: one pass over the map, no
// lookup per key. With a stack buffer of enough capacity it does not allocate.
func sortedFields(m map[string]string, buf []extField) []extField {
	for k, v := range m {
		buf = append(buf, extField{k, v})
	}
	if len(buf) > 32 {
		slices.SortFunc(buf, func(a, b extField) int { return strings.Compare(a.k, b.k) })
		return buf
	}
	for i := 1; i < len(buf); i++ { // insertion sort: few keys, no allocation
		for j := i; j > 0 && buf[j].k < buf[j-1].k; j-- {
			buf[j], buf[j-1] = buf[j-1], buf[j]
		}
	}
	return buf
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string: quotes, backslashes and control characters
// escaped, everything else (UTF-8 included) as is.
func appendJSONString(dst []byte, s string) []byte { return AppendJSONString(dst, s, false) }

// AppendJSONString appends s as a JSON string: '"', '\\' and control characters escaped
// (\n, \r, \t, the rest as \u00XX), everything else (UTF-8 included) as is. With fastjson,
// \b and \f get their short escapes too, as fastjson writes them (the bodies in
// remoting/protocol); the header codec writes \u0008 and \u000c.
func AppendJSONString(dst []byte, s string, fastjson bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b >= 0x20 && b != '"' && b != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch b {
		case '"', '\\':
			dst = append(dst, '\\', b)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = appendControl(dst, b, 'b', fastjson)
		case '\f':
			dst = appendControl(dst, b, 'f', fastjson)
		default:
			dst = appendControl(dst, b, 0, false)
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendControl escapes the control byte b as \<short> when useShort, else as \u00XX.
func appendControl(dst []byte, b, short byte, useShort bool) []byte {
	if useShort {
		return append(dst, '\\', short)
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
}

// maxJSONDepth bounds nesting inside skipped values, so hostile headers cannot exhaust the stack.
const maxJSONDepth = 64

var (
	errJSONSyntax = errors.New("json header: syntax error")
	errJSONDepth  = errors.New("json header: nesting too deep")
)

// jsonParser is a minimal reader over one JSON header; every method checks bounds, so no input
// makes it panic.
type jsonParser struct {
	s   string // the whole header, converted once: unescaped strings are substrings of it
	pos int
}

func (p *jsonParser) syntax(what string) error {
	return fmt.Errorf("%w: %s at byte %d", errJSONSyntax, what, p.pos)
}

func (p *jsonParser) skipWS() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte (0 at the end).
func (p *jsonParser) peek() byte {
	p.skipWS()
	if p.pos < len(p.s) {
		return p.s[p.pos]
	}
	return 0
}

func (p *jsonParser) expect(c byte) error {
	if p.peek() != c {
		return p.syntax(fmt.Sprintf("expected %q", c))
	}
	p.pos++
	return nil
}

// HeaderFunc returns the CustomHeader that takes the extFields of a request with code, or nil
// (the members go to ExtFields).
type HeaderFunc func(code int32) CustomHeader

// decodeJSONHeader fills c from a JSON header. The header is converted to a string once; field
// values without escapes are substrings of it (one allocation instead of one per field).
// extFields members go to ExtFields, or, for a request whose code newHeader (nil: none) gives a
// CustomHeader, to that header (setExtFields).
func decodeJSONHeader(b []byte, c *RemotingCommand, newHeader HeaderFunc) error {
	p := jsonParser{s: string(b)}
	// kv holds the extFields members, key and value in turn, until the whole header is read
	// and the code and flag tell where they go; on the stack for up to 20 members (a send
	// header has 14). Kept out of p: p's contents escape (its strings end up in c).
	var buf [40]string
	kv := buf[:0]
	err := p.object("field name", func(key string) (err error) {
		if key == "extFields" {
			kv, err = p.extFields(kv)
			return err
		}
		return p.field(key, c)
	})
	if err != nil {
		return err
	}
	if p.peek() != 0 || p.pos != len(p.s) {
		return p.syntax("trailing bytes")
	}
	setExtFields(c, kv, newHeader)
	return nil
}

// setExtFields hands the extFields members kv (key, value, key, value, ...) of a decoded
// command to its CustomHeader — a request whose code newHeader maps to one — keeping in
// ExtFields the members the header does not take; else to ExtFields, sized once (growing a
// map member by member was 14 % of a broker's CPU under async sends). Later members of the
// same key replace earlier ones, in either place. A response never gets a CustomHeader: its
// code is a response code, and the flag may come after extFields in the header.
func setExtFields(c *RemotingCommand, kv []string, newHeader HeaderFunc) {
	if len(kv) == 0 {
		return
	}
	if newHeader != nil && !c.IsResponse() {
		if h := newHeader(c.Code); h != nil {
			c.CustomHeader = h
			for i := 0; i+1 < len(kv); i += 2 {
				if !h.SetExtField(kv[i], kv[i+1]) {
					c.AddExtField(kv[i], kv[i+1])
				}
			}
			return
		}
	}
	if c.ExtFields == nil {
		c.ExtFields = make(map[string]string, len(kv)/2)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		c.ExtFields[kv[i]] = kv[i+1]
	}
}

// object reads a JSON object, calling member for each key with the parser at the key's value;
// what names a key in the error when one is missing ("expected " + what).
func (p *jsonParser) object(what string, member func(key string) error) error {
	if err := p.expect('{'); err != nil {
		return err
	}
	if p.peek() == '}' {
		p.pos++
		return nil
	}
	for {
		if p.peek() != '"' {
			return p.syntax("expected " + what)
		}
		key, err := p.stringValue()
		if err != nil {
			return err
		}
		if err := p.expect(':'); err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
		if p.peek() != ',' {
			return p.expect('}')
		}
		p.pos++
	}
}

// field decodes the value of one top-level field other than extFields.
func (p *jsonParser) field(key string, c *RemotingCommand) error {
	var err error
	switch key {
	case "code":
		c.Code, err = p.int32Value()
	case "version":
		c.Version, err = p.int32Value()
	case "opaque":
		c.Opaque, err = p.int32Value()
	case "flag":
		c.Flag, err = p.int32Value()
	case "language":
		c.Language, err = p.languageValue()
	case "remark":
		var s string
		if s, _, err = p.scalarText(); err == nil {
			c.Remark = s
		}
	default:
		err = p.skipValue(0)
	}
	return err
}

// int32Value reads a number (or a string holding one, or null = 0) that fits in int32.
func (p *jsonParser) int32Value() (int32, error) {
	switch p.peek() {
	case 'n':
		return 0, p.literal("null")
	case '"':
		s, err := p.stringValue()
		if err != nil {
			return 0, err
		}
		return parseInt32(s)
	}
	tok, err := p.number()
	if err != nil {
		return 0, err
	}
	return parseInt32(tok)
}

// parseInt32 parses an integer literal, or a number with a fraction/exponent whose value is
// integral, into int32.
func parseInt32(tok string) (int32, error) {
	neg := len(tok) > 0 && tok[0] == '-'
	digits := tok
	if neg {
		digits = tok[1:]
	}
	if len(digits) > 0 && len(digits) <= 10 {
		var v int64
		simple := true
		for i := 0; i < len(digits); i++ {
			d := digits[i]
			if d < '0' || d > '9' {
				simple = false
				break
			}
			v = v*10 + int64(d-'0')
		}
		if simple {
			if neg {
				v = -v
			}
			if v < math.MinInt32 || v > math.MaxInt32 {
				return 0, fmt.Errorf("%w: %s out of int32 range", errJSONSyntax, tok)
			}
			return int32(v), nil
		}
	}
	f, err := strconv.ParseFloat(tok, 64)
	if err != nil || f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return 0, fmt.Errorf("%w: %q is not an int32", errJSONSyntax, tok)
	}
	return int32(f), nil
}

// languageValue reads a language name, or a LanguageCode ordinal, or null.
func (p *jsonParser) languageValue() (string, error) {
	switch p.peek() {
	case 'n':
		return "", p.literal("null")
	case '"':
		s, err := p.stringValue()
		if err != nil {
			return "", err
		}
		return s, nil
	}
	v, err := p.int32Value()
	if err != nil {
		return "", err
	}
	if v < 0 || v > math.MaxUint8 {
		return languageNames[languageOther], nil
	}
	return languageName(byte(v)), nil
}

// extFields reads the extFields object (or null), appending its members to kv, key and
// value in turn (setExtFields places them); null values are dropped.
func (p *jsonParser) extFields(kv []string) ([]string, error) {
	if p.peek() == 'n' {
		return kv, p.literal("null")
	}
	err := p.object("extFields key", func(key string) error {
		v, ok, err := p.scalarText()
		if ok && err == nil {
			kv = append(kv, key, v)
		}
		return err
	})
	return kv, err
}

// scalarText reads any value and returns its string form: a string's decoded text, a number's
// or boolean's literal text, an object's or array's raw JSON text; ok is false for null.
func (p *jsonParser) scalarText() (text string, ok bool, err error) {
	switch c := p.peek(); {
	case c == '"':
		s, err := p.stringValue()
		return s, err == nil, err
	case c == 'n':
		return "", false, p.literal("null")
	case c == 't':
		return "true", true, p.literal("true")
	case c == 'f':
		return "false", true, p.literal("false")
	case c == '{' || c == '[':
		start := p.pos
		if err := p.skipValue(0); err != nil {
			return "", false, err
		}
		return p.s[start:p.pos], true, nil
	default:
		tok, err := p.number()
		return tok, err == nil, err
	}
}

func (p *jsonParser) literal(word string) error {
	p.skipWS()
	if len(p.s)-p.pos < len(word) || p.s[p.pos:p.pos+len(word)] != word {
		return p.syntax("bad literal")
	}
	p.pos += len(word)
	return nil
}

// number reads a JSON number token and returns its text.
func (p *jsonParser) number() (string, error) {
	p.skipWS()
	start := p.pos
	if p.pos < len(p.s) && p.s[p.pos] == '-' {
		p.pos++
	}
	digits := p.digits()
	if digits == 0 {
		return "", p.syntax("expected value")
	}
	if p.pos < len(p.s) && p.s[p.pos] == '.' {
		p.pos++
		if p.digits() == 0 {
			return "", p.syntax("bad fraction")
		}
	}
	if p.pos < len(p.s) && (p.s[p.pos] == 'e' || p.s[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.s) && (p.s[p.pos] == '+' || p.s[p.pos] == '-') {
			p.pos++
		}
		if p.digits() == 0 {
			return "", p.syntax("bad exponent")
		}
	}
	return p.s[start:p.pos], nil
}

func (p *jsonParser) digits() int {
	n := 0
	for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		p.pos++
		n++
	}
	return n
}

// stringValue reads a JSON string (at p.pos, after spaces) and returns its decoded text: a
// substring of the header when it has no escapes, a new string otherwise.
func (p *jsonParser) stringValue() (string, error) {
	if p.peek() != '"' {
		return "", p.syntax("expected string")
	}
	p.pos++
	start := p.pos
	// Two vectorised scans (the closing quote, then a backslash before it) instead of a loop
	// over every byte: header values (properties above all) are most of a send's header.
	q := strings.IndexByte(p.s[start:], '"')
	if q < 0 {
		if strings.IndexByte(p.s[start:], '\\') >= 0 {
			return p.escapedString(start) // reports the unterminated string after the escapes
		}
		p.pos = len(p.s)
		return "", p.syntax("unterminated string")
	}
	if b := strings.IndexByte(p.s[start:start+q], '\\'); b >= 0 {
		p.pos = start + b
		return p.escapedString(start)
	}
	p.pos = start + q + 1
	return p.s[start : start+q], nil
}

// escapedString decodes a string that contains escapes, starting at start (after the quote).
// The runs between escapes are copied whole (found with IndexByte: a send's properties have
// an escaped \u0001 or \u0002 between every name and value), into a strings.Builder, so the
// result costs one allocation.
func (p *jsonParser) escapedString(start int) (string, error) {
	q := -1 // the next '"' at or after p.pos; found again once an escaped quote passed it
	if i := strings.IndexByte(p.s[p.pos:], '"'); i >= 0 {
		q = p.pos + i
	}
	var out strings.Builder
	out.Grow(max(q, p.pos) - start) // the string is shorter, unless it has escaped quotes
	out.WriteString(p.s[start:p.pos])
	for p.pos < len(p.s) {
		if q < p.pos {
			i := strings.IndexByte(p.s[p.pos:], '"')
			if i < 0 {
				break
			}
			q = p.pos + i
		}
		bs := strings.IndexByte(p.s[p.pos:q], '\\')
		if bs < 0 {
			out.WriteString(p.s[p.pos:q])
			p.pos = q + 1
			return out.String(), nil
		}
		out.WriteString(p.s[p.pos : p.pos+bs])
		p.pos += bs + 1 // past the backslash
		if p.pos >= len(p.s) {
			break
		}
		e := p.s[p.pos]
		p.pos++
		switch e {
		case '"', '\\', '/':
			out.WriteByte(e)
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.syntax("bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				save := p.pos
				if p.pos+1 < len(p.s) && p.s[p.pos] == '\\' && p.s[p.pos+1] == 'u' {
					p.pos += 2
					if lo, ok := p.hex4(); ok {
						r2 = lo
					}
				}
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					r = d
				} else {
					r = utf8.RuneError
					p.pos = save // the second escape, if any, stands on its own
				}
			}
			out.WriteRune(r)
		default:
			return "", p.syntax("bad escape")
		}
	}
	p.pos = len(p.s)
	return "", p.syntax("unterminated string")
}

func (p *jsonParser) hex4() (rune, bool) {
	if len(p.s)-p.pos < 4 {
		return 0, false
	}
	var r rune
	for i := p.pos; i < p.pos+4; i++ {
		c := p.s[i]
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	p.pos += 4
	return r, true
}

// skipValue skips any JSON value, nested at most maxJSONDepth deep.
func (p *jsonParser) skipValue(depth int) error {
	if depth > maxJSONDepth {
		return errJSONDepth
	}
	switch c := p.peek(); c {
	case '"':
		_, err := p.stringValue()
		return err
	case 't':
		return p.literal("true")
	case 'f':
		return p.literal("false")
	case 'n':
		return p.literal("null")
	case '{', '[':
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		p.pos++
		if p.peek() == closing {
			p.pos++
			return nil
		}
		for {
			if c == '{' {
				if _, err := p.stringValue(); err != nil {
					return err
				}
				if err := p.expect(':'); err != nil {
					return err
				}
			}
			if err := p.skipValue(depth + 1); err != nil {
				return err
			}
			if p.peek() == ',' {
				p.pos++
				continue
			}
			return p.expect(closing)
		}
	default:
		_, err := p.number()
		return err
	}
}
