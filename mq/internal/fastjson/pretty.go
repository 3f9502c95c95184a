package fastjson

import "bytes"

// stringEnd returns the index just past the JSON string starting with the quote at in[start].
func stringEnd(in []byte, start int) (int, bool) {
	for j := start + 1; j < len(in); j++ {
		switch in[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// Pretty re-indents compact standard JSON the way fastjson's PrettyFormat does: a
// newline and one more tab after every '{' or '[' and ',' of a non-empty container, the closing
// bracket on its own line, no space after ':'. Empty containers stay "{}" and "[]".
func Pretty(compact []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(compact) * 2)
	depth := 0
	newline := func() {
		out.WriteByte('\n')
		for range depth {
			out.WriteByte('\t')
		}
	}
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		switch c {
		case '"':
			end, ok := stringEnd(compact, i)
			if !ok {
				end = len(compact)
			}
			out.Write(compact[i:end])
			i = end - 1
		case '{', '[':
			out.WriteByte(c)
			if i+1 < len(compact) && (compact[i+1] == '}' || compact[i+1] == ']') {
				out.WriteByte(compact[i+1])
				i++
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			out.WriteByte(c)
		case ',':
			out.WriteByte(c)
			newline()
		default:
			out.WriteByte(c)
		}
	}
	return out.Bytes()
}
