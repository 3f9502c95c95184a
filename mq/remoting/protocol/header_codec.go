package protocol

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// A header that is not on the per-message path declares its wire form in `ext` struct tags,
// and decodeHeader / encodeHeader code it, so one description serves both directions and an
// encoder cannot drift from its decoder. The tag is the extFields key, then options:
//
//	ext:"topic"                      required: absent is ErrMissingField; always written
//	ext:"bodyCrc32,optional"         absent decodes as the zero value; always written
//	ext:"bname,omitempty"            optional, and left out when zero ("", 0, false)
//	ext:"maxReconsumeTimes,has=HasX" optional; the bool field HasX says whether it was
//	                                 present, and it is written only when HasX is true
//
// Field types: string (and string types), int32, int64, bool, parsed and printed as
// extReader does (Java's decodeCommandCustomHeader). Untagged fields are left zero by decode
// and not written. The send and pull headers keep hand-written codecs: they run per message.

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
	p, _ := headerPlans.LoadOrStore(t, plan)
	return p.([]headerField)
}

// decodeHeader sets the struct h points to from ext by its `ext` tags, in field order; the
// first failure is returned (ErrMissingField, ErrBadField). It allocates nothing on success.
func decodeHeader(ext map[string]string, h any) error {
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

// encodeHeader writes the struct h points to as extFields by its `ext` tags.
func encodeHeader(h any) map[string]string {
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
