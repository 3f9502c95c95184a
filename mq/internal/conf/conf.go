package conf

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ParseProperties reads `key=value`, `key = value` or `key:value` lines; `#` and `!` start
// comment lines; blank lines are skipped; surrounding spaces are trimmed. A line without a
// separator is an error naming its line number.
func ParseProperties(r io.Reader) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		// As java.util.Properties: the key ends at the first '=', ':' or blank; blanks and one
		// '=' or ':' may follow it ("k=v", "k = v", "k:v", "k v").
		i := strings.IndexAny(line, "=: \t\f")
		if i <= 0 {
			return nil, fmt.Errorf("properties line %d: %q has no key=value", n, line)
		}
		rest := strings.TrimLeft(line[i:], " \t\f")
		if rest != "" && (rest[0] == '=' || rest[0] == ':') {
			rest = rest[1:]
		}
		out[line[:i]] = strings.TrimSpace(rest)
	}
	return out, sc.Err()
}

type field struct {
	key  string
	v    reflect.Value
	unit time.Duration
}

// fields lists the tagged fields of the structs in declaration order.
func fields(dsts ...any) []field {
	var out []field
	for _, d := range dsts {
		v := reflect.ValueOf(d)
		if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			panic("conf: destination must be a pointer to a struct")
		}
		collect(v.Elem(), &out)
	}
	return out
}

func collect(v reflect.Value, out *[]field) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			collect(v.Field(i), out)
			continue
		}
		tag := sf.Tag.Get("prop")
		if tag == "" || tag == "-" || !sf.IsExported() {
			continue
		}
		name, opt, _ := strings.Cut(tag, ",")
		unit := time.Millisecond
		if opt == "s" {
			unit = time.Second
		}
		*out = append(*out, field{key: name, v: v.Field(i), unit: unit})
	}
}

// Apply sets the fields tagged with the given keys. Keys no destination knows are returned
// (RocketMQ ignores them; callers warn). A value that does not parse is an error naming the key.
func Apply(props map[string]string, dsts ...any) (unknown []string, err error) {
	fs := map[string]field{}
	for _, f := range fields(dsts...) {
		fs[f.key] = f
	}
	for k, s := range props {
		f, ok := fs[k]
		if !ok {
			unknown = append(unknown, k)
			continue
		}
		if err := set(f, s); err != nil {
			return nil, fmt.Errorf("config %s=%q: %w", k, s, err)
		}
	}
	sort.Strings(unknown)
	return unknown, nil
}

var durationType = reflect.TypeOf(time.Duration(0))

func set(f field, s string) error {
	v := f.v
	if v.Type() == durationType {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("want a whole number of %s", unitName(f.unit))
		}
		v.SetInt(n * int64(f.unit))
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return errors.New("want true or false")
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, v.Type().Bits())
		if errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("out of range for a %d-bit integer", v.Type().Bits())
		}
		if err != nil {
			return errors.New("want a whole number (no units or suffixes)")
		}
		v.SetInt(n)
	default:
		return fmt.Errorf("unsupported field kind %s", v.Kind())
	}
	return nil
}

// unitName names a duration key's unit in an error text ("milliseconds", "seconds", ...).
func unitName(u time.Duration) string {
	switch u {
	case time.Millisecond:
		return "milliseconds"
	case time.Second:
		return "seconds"
	case time.Minute:
		return "minutes"
	case time.Hour:
		return "hours"
	}
	return u.String() + " units"
}

// Format returns the tagged fields of the structs as `key=value` lines in declaration order,
// durations in their tag's unit — the output of a RocketMQ binary's `-p`
// (Java: MixAll#printObjectProperties).
func Format(dsts ...any) string {
	var b strings.Builder
	for _, f := range fields(dsts...) {
		var s string
		if f.v.Type() == durationType {
			s = strconv.FormatInt(int64(f.v.Interface().(time.Duration)/f.unit), 10)
		} else {
			s = fmt.Sprint(f.v.Interface())
		}
		fmt.Fprintf(&b, "%s=%s\n", f.key, s)
	}
	return b.String()
}

// ParseLogLevel reads a logLevel value: DEBUG, INFO, WARN (or WARNING) or ERROR, any case.
// logLevel is not a RocketMQ key (RocketMQ configures logback); the binaries use it for the
// level of their slog output on stderr.
func ParseLogLevel(s string) (slog.Level, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "DEBUG":
		return slog.LevelDebug, nil
	case "INFO":
		return slog.LevelInfo, nil
	case "WARN", "WARNING":
		return slog.LevelWarn, nil
	case "ERROR":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("logLevel %q: want DEBUG, INFO, WARN or ERROR", s)
}
