package fastjson

// QuoteObjectKeys rewrites fastjson text whose map keys are objects into standard JSON by
// turning each such key into a string holding the key's text:
//
//	{{"brokerName":"b","queueId":0,"topic":"T"}:{"maxOffset":3}}
//	→ {"{\"brokerName\":\"b\",\"queueId\":0,\"topic\":\"T\"}":{"maxOffset":3}}
//
// fastjson writes a Map<MessageQueue, X> that way (TopicStatsTable, ConsumeStats,
// ResetOffsetBody); unmarshal the result into a map[string]X and each key into the key type.
// Numeric keys are quoted too (QuoteNumericKeys), so one pass reads both dialects (the text
// of an object key is copied as it is); standard JSON passes through unchanged. Errors: ErrUnterminatedString, or an object key whose braces
// do not close (wrapped with its byte position). It never panics.
func QuoteObjectKeys(in []byte) ([]byte, error) { return quoteKeys(in, true) }

// objectEnd returns the index just past the object starting with the brace at in[start].
func objectEnd(in []byte, start int) (int, bool) {
	depth := 0
	for j := start; j < len(in); j++ {
		switch in[j] {
		case '"':
			end, ok := stringEnd(in, j)
			if !ok {
				return 0, false
			}
			j = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1, true
			}
		}
	}
	return 0, false
}

// appendQuoted appends s as a JSON string (quotes and backslashes escaped; s is JSON text, so
// it holds no control characters outside its strings, and those are escaped already).
func appendQuoted(out, s []byte) []byte {
	out = append(out, '"')
	for _, c := range s {
		if c == '"' || c == '\\' {
			out = append(out, '\\')
		}
		out = append(out, c)
	}
	return append(out, '"')
}
