package protocol

import (
	"maps"
	"slices"
	"strconv"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
)

// This file writes and reads the JSON dialect of fastjson (RocketMQ 4.x's JSON library) where
// it differs from standard JSON: maps with numeric keys are written with the keys unquoted
// ({0:"127.0.0.1:10911"}), which is not valid JSON (remoting-protocol.md §7.4).

// jsonWriter appends compact JSON (no spaces, as fastjson writes it) to b.
type jsonWriter struct {
	b []byte
	// quoteNumKeys writes numeric map keys quoted (standard JSON) instead of bare.
	quoteNumKeys bool
}

func (w *jsonWriter) byte(c byte)     { w.b = append(w.b, c) }
func (w *jsonWriter) str(s string)    { w.b = appendJSONString(w.b, s) }
func (w *jsonWriter) int(n int64)     { w.b = strconv.AppendInt(w.b, n, 10) }
func (w *jsonWriter) key(name string) { w.str(name); w.byte(':') }

// next writes the ',' before a field that is not an object's first, and the field's key.
func (w *jsonWriter) next(name string) { w.byte(','); w.key(name) }

// writeObject writes m as {"key":value,...}, keys sorted, each value by value.
func writeObject[V any](w *jsonWriter, m map[string]V, value func(V)) {
	w.byte('{')
	for i, k := range sortedKeys(m) {
		w.comma(i)
		w.key(k)
		value(m[k])
	}
	w.byte('}')
}

func (w *jsonWriter) comma(i int) {
	if i > 0 {
		w.byte(',')
	}
}

// numKey writes a numeric map key followed by ':'.
func (w *jsonWriter) numKey(n int64) {
	if w.quoteNumKeys {
		w.byte('"')
		w.int(n)
		w.byte('"')
	} else {
		w.int(n)
	}
	w.byte(':')
}

func (w *jsonWriter) strings(list []string) {
	w.byte('[')
	for i, s := range list {
		w.comma(i)
		w.str(s)
	}
	w.byte(']')
}

// appendJSONString appends s quoted, escaping '"', '\\' and control characters as fastjson
// does (\b and \f short); other bytes (UTF-8 included) are written as they are.
func appendJSONString(b []byte, s string) []byte { return remoting.AppendJSONString(b, s, true) }

// sortedKeys is m's keys in increasing order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
