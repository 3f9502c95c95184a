package protocol

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// DecodeHeader and EncodeHeader are the one codec of every header. A header on the
// per-message path (send, pull) has a hand-written codec, its decodeExt and encodeExt methods;
// every other header declares its wire form in `ext` struct tags, so one description serves
// both directions and an encoder cannot drift from its decoder. The tag grammar is in doc.go
// (# Headers).
//
// The hand-written codecs are found by a type switch, not an interface: a call through an
// interface makes the compiler move every header a caller decodes to the heap, one allocation
// per request on the send and pull paths. For the same reason checkFields is switched on, not
// asserted. A header type that is added to one of these lists needs no other change.

// DecodeHeader sets the header h points to (a *XxxHeader of this package) from a command's
// extFields, by its hand-written codec or else by its `ext` tags and then its checkFields.
// Errors: ErrMissingField, ErrBadField, naming the field's key. On success it allocates
// nothing and h does not escape. A type that is no header panics (a programmer error).
// Java: RemotingCommand#decodeCommandCustomHeader, then CommandCustomHeader#checkFields.
func DecodeHeader(ext map[string]string, h any) error {
	switch h := h.(type) {
	case *SendMessageRequestHeader:
		return h.decodeExt(ext)
	case *SendMessageResponseHeader:
		return h.decodeExt(ext)
	case *PullMessageRequestHeader:
		return h.decodeExt(ext)
	case *PullMessageResponseHeader:
		return h.decodeExt(ext)
	}
	if err := decodeTagged(ext, h); err != nil {
		return err
	}
	switch h := h.(type) {
	case *CreateTopicRequestHeader:
		return h.checkFields(ext)
	case *EndTransactionRequestHeader:
		return h.checkFields(ext)
	}
	return nil
}

// EncodeHeader writes the header h points to as a command's extFields, by its hand-written
// codec or else by its `ext` tags. A type that is no header panics (a programmer error).
// Java: RemotingCommand#makeCustomHeaderToNet.
func EncodeHeader(h any) map[string]string {
	switch h := h.(type) {
	case *SendMessageRequestHeader:
		return h.encodeExt()
	case *SendMessageResponseHeader:
		return h.encodeExt()
	case *PullMessageRequestHeader:
		return h.encodeExt()
	case *PullMessageResponseHeader:
		return h.encodeExt()
	}
	return encodeTagged(h)
}

// headerField is one tagged field of a header struct.
type headerField struct {
	index     int
	key       string
	kind      reflect.Kind
	optional  bool
	omitEmpty bool
	has       int // index of the presence field, or -1
}

var headerPlans sync.Map // reflect.Type → []headerField

// planOf reads the `ext` tags of struct type t once. A tag it cannot code is a programmer
// error and panics.
func planOf(t reflect.Type) []headerField {
	if p, ok := headerPlans.Load(t); ok {
		return p.([]headerField)
	}
	var plan []headerField
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag, ok := sf.Tag.Lookup("ext")
		if !ok {
			continue
		}
		parts := strings.Split(tag, ",")
		f := headerField{index: i, key: parts[0], kind: sf.Type.Kind(), has: -1}
		for _, opt := range parts[1:] {
			switch {
			case opt == "optional":
				f.optional = true
			case opt == "omitempty":
				f.optional, f.omitEmpty = true, true
			case strings.HasPrefix(opt, "has="):
				hf, ok := t.FieldByName(strings.TrimPrefix(opt, "has="))
				if !ok || hf.Type.Kind() != reflect.Bool {
					panic(fmt.Sprintf("protocol: %s.%s: %s names no bool field", t.Name(), sf.Name, opt))
				}
				f.optional, f.has = true, hf.Index[0]
			default:
				panic(fmt.Sprintf("protocol: %s.%s: unknown ext option %q", t.Name(), sf.Name, opt))
			}
		}
		switch f.kind {
		case reflect.String, reflect.Int32, reflect.Int64, reflect.Bool:
		default:
			panic(fmt.Sprintf("protocol: %s.%s: ext field of kind %s", t.Name(), sf.Name, f.kind))
		}
		plan = append(plan, f)
	}
	if len(plan) == 0 {
		panic(fmt.Sprintf("protocol: %s has no ext tags: not a header", t.Name()))
	}
	p, _ := headerPlans.LoadOrStore(t, plan)
	return p.([]headerField)
}

// decodeTagged sets the struct h points to from ext by its `ext` tags, in field order; the
// first failure is returned (ErrMissingField, ErrBadField). It allocates nothing on success.
func decodeTagged(ext map[string]string, h any) error {
	v := reflect.ValueOf(h).Elem()
	v.SetZero()
	r := extReader{ext: ext}
	for _, f := range planOf(v.Type()) {
		fv := v.Field(f.index)
		raw, present := ext[f.key]
		if !f.optional {
			raw, present = r.required(f.key)
		}
		if !present {
			continue
		}
		if f.has >= 0 {
			v.Field(f.has).SetBool(true)
		}
		switch f.kind {
		case reflect.String:
			fv.SetString(raw)
		case reflect.Int32:
			fv.SetInt(int64(r.parse32(f.key, raw)))
		case reflect.Int64:
			fv.SetInt(r.parse64(f.key, raw))
		case reflect.Bool:
			fv.SetBool(strings.EqualFold(raw, "true"))
		}
	}
	return r.err
}

// encodeTagged writes the struct h points to as extFields by its `ext` tags.
func encodeTagged(h any) map[string]string {
	v := reflect.ValueOf(h).Elem()
	plan := planOf(v.Type())
	ext := make(map[string]string, len(plan))
	for _, f := range plan {
		fv := v.Field(f.index)
		if (f.omitEmpty && fv.IsZero()) || (f.has >= 0 && !v.Field(f.has).Bool()) {
			continue
		}
		switch f.kind {
		case reflect.String:
			ext[f.key] = fv.String()
		case reflect.Int32, reflect.Int64:
			ext[f.key] = strconv.FormatInt(fv.Int(), 10)
		case reflect.Bool:
			ext[f.key] = strconv.FormatBool(fv.Bool())
		}
	}
	return ext
}
