// Package fastjson reads the JSON dialect of fastjson (RocketMQ 4.x's JSON library) where it
// differs from standard JSON: maps with Integer or Long keys are written with the keys unquoted
// ({0:"127.0.0.1:10911"}, {1:0}), which encoding/json rejects (docs/reference/store-formats.md
// §7.4, docs/reference/remoting-protocol.md §7.4). QuoteNumericKeys turns such text into
// standard JSON and Unmarshal reads it; the remoting bodies, the broker's config/*.json files and the schedule
// service's delayOffset.json all read through it.
//
// Java: com.alibaba.fastjson's JSON#toJSONString (what writes the dialect); RocketMQ has no
// reader of its own, fastjson reads its own text.
//
// Layer 0: imports only the standard library.
//
// # Files
//
//	pretty.go Pretty (compact JSON -> fastjson's PrettyFormat layout, which the broker's
//	          config/*.json files use); stringEnd, the string scan both files share
//	quote.go  QuoteNumericKeys (fastjson text -> standard JSON), ErrUnterminatedString, and
//	          Unmarshal (fastjson text or standard JSON into a Go value)
//	object_keys.go QuoteObjectKeys (maps keyed by objects, fastjson's Map<MessageQueue, X>,
//	          -> standard JSON with the key text as a string key)
//
// No goroutines, no locks: the functions work on the bytes they are given.
package fastjson
