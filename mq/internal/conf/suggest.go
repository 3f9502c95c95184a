package conf

import (
	"errors"
	"fmt"
)

// ErrUsage wraps a command-line error that the flag package has already printed, with the
// usage: a binary exits 2 without printing it again.
var ErrUsage = errors.New("usage")

// Keys lists the property keys of the structs' tagged fields, in declaration order.
func Keys(dsts ...any) []string {
	var out []string
	for _, f := range fields(dsts...) {
		out = append(out, f.key)
	}
	return out
}

// Suggest returns the one key of known that key is a likely misspelling of, or "": the known
// key at the smallest edit distance (Levenshtein, letters compared as written), when that
// distance is at most maxSuggestDistance and no other known key is as close.
func Suggest(key string, known []string) string {
	best, bestDist, ties := "", maxSuggestDistance+1, 0
	for _, k := range known {
		d := editDistance(key, k)
		switch {
		case d < bestDist:
			best, bestDist, ties = k, d, 1
		case d == bestDist:
			ties++
		}
	}
	if ties != 1 || bestDist == 0 {
		return ""
	}
	return best
}

// maxSuggestDistance is how many single-letter edits a "did you mean" bridges: two catches a
// dropped, doubled or swapped letter without pairing unrelated short keys.
const maxSuggestDistance = 2

// DescribeUnknown is the warning text for keys no config knows: each key, with
// " (did you mean X?)" when Suggest finds one, joined by ", ".
func DescribeUnknown(unknown, known []string) string {
	s := ""
	for i, k := range unknown {
		if i > 0 {
			s += ", "
		}
		s += k
		if m := Suggest(k, known); m != "" {
			s += fmt.Sprintf(" (did you mean %s?)", m)
		}
	}
	return s
}

// editDistance is the Levenshtein distance between a and b (insertions, deletions and
// substitutions of one byte each cost 1).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
