package primitive

import (
	"slices"
	"strconv"
	"strings"
)

// MarshalProperties encodes properties as RocketMQ's properties string:
// name 0x01 value, entries joined by 0x02, no trailing 0x02 (the Java 4.9.3+ form).
//
// Deviation: Java writes the entries in HashMap order; we sort the names so the same map always
// gives the same bytes (stable CommitLog records, golden traces). Readers never depend on the
// order. Entries with an empty name or value are written as given; every reader (Java and
// UnmarshalProperties) drops them again.
//
// Java: MessageDecoder#messageProperties2String.
func MarshalProperties(props map[string]string) string {
	if len(props) == 0 {
		return ""
	}
	// Up to 16 names are sorted on the stack; the string itself is the one allocation.
	var keyBuf [16]string
	keys := keyBuf[:0]
	size := 0
	for k, v := range props {
		keys = append(keys, k)
		size += len(k) + len(v) + 2
	}
	slices.Sort(keys)
	var sb strings.Builder
	sb.Grow(size - 1)
	for i, k := range keys {
		if i > 0 {
			sb.WriteByte(PropertySeparator)
		}
		sb.WriteString(k)
		sb.WriteByte(NameValueSeparator)
		sb.WriteString(props[k])
	}
	return sb.String()
}

// UnmarshalProperties parses a properties string. It accepts both writers' forms: with a
// trailing 0x02 (client-go, Java ≤ 4.9.2) and without (Java 4.9.3+). Each entry is split at its
// first 0x01, so a value may itself contain 0x01; entries with an empty name or an empty value,
// or without 0x01, are skipped, as Java does. Returns nil for "".
//
// Java: MessageDecoder#string2messageProperties.
func UnmarshalProperties(s string) map[string]string {
	if s == "" {
		return nil
	}
	props := make(map[string]string, strings.Count(s, "\x02")+1)
	for len(s) > 0 {
		entry := s
		if i := strings.IndexByte(s, PropertySeparator); i >= 0 {
			entry, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		sep := strings.IndexByte(entry, NameValueSeparator)
		if sep <= 0 || sep == len(entry)-1 {
			continue
		}
		props[entry[:sep]] = entry[sep+1:]
	}
	return props
}

// GetProperty returns the property value, "" when absent. Safe on a nil map.
func (m *Message) GetProperty(name string) string {
	return m.Properties[name]
}

// PutProperty sets a property, creating the map if needed.
// Java: Message#putProperty.
func (m *Message) PutProperty(name, value string) {
	if m.Properties == nil {
		m.Properties = make(map[string]string, 4)
	}
	m.Properties[name] = value
}

// RemoveProperty deletes a property. Safe on a nil map.
// Java: MessageAccessor#clearProperty.
func (m *Message) RemoveProperty(name string) {
	delete(m.Properties, name)
}

// Tags returns the TAGS property ("" when absent).
func (m *Message) Tags() string { return m.Properties[PropertyTags] }

// Keys returns the KEYS property: business keys separated by KeySeparator ("" when absent).
func (m *Message) Keys() string { return m.Properties[PropertyKeys] }

// WaitStoreMsgOK reports whether the producer waits for the store (sync flush / sync replica):
// true when WAIT is absent, else whether it equals "true" ignoring case (Java
// Boolean.parseBoolean).
// Java: Message#isWaitStoreMsgOK.
func (m *Message) WaitStoreMsgOK() bool {
	v, ok := m.Properties[PropertyWaitStoreMsgOK]
	if !ok {
		return true
	}
	return strings.EqualFold(v, "true")
}

// DelayTimeLevel returns the DELAY property as a level (0 when absent or not a number).
// Java: Message#getDelayTimeLevel.
func (m *Message) DelayTimeLevel() int32 {
	v, ok := m.Properties[PropertyDelayTimeLevel]
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0
	}
	return int32(n)
}
