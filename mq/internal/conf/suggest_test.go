package conf

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEditDistance pins the Levenshtein distance the "did you mean" hint is built on.
func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"listenPort", "listenPort", 0},
		{"listenPrt", "listenPort", 1},   // a dropped letter
		{"listenPoort", "listenPort", 1}, // a doubled letter
		{"lsitenPort", "listenPort", 2},  // two letters swapped
		{"kitten", "sitting", 3},
	} {
		require.Equal(t, tc.want, editDistance(tc.a, tc.b), "%q %q", tc.a, tc.b)
		require.Equal(t, tc.want, editDistance(tc.b, tc.a), "%q %q", tc.b, tc.a)
	}
}

// TestSuggest: a key one or two edits from exactly one known key gets that key; a key far from
// all, or as close to two, gets none.
func TestSuggest(t *testing.T) {
	known := []string{"listenPort", "brokerIP1", "brokerIP2", "flushDiskType", "namesrvAddr"}
	require.Equal(t, "listenPort", Suggest("listenPrt", known))
	require.Equal(t, "flushDiskType", Suggest("flushDisktype", known))
	require.Equal(t, "namesrvAddr", Suggest("namesrvAdr", known))
	require.Empty(t, Suggest("brokerIP3", known), "as close to brokerIP1 as to brokerIP2")
	require.Empty(t, Suggest("somethingElse", known))
	require.Empty(t, Suggest("listenPort", known), "a known key is no misspelling")
}

// TestDescribeUnknown is the text the binaries print for unknown keys.
func TestDescribeUnknown(t *testing.T) {
	type cfg struct {
		ListenPort int    `prop:"listenPort"`
		Name       string `prop:"brokerName"`
	}
	known := Keys(&cfg{})
	require.Equal(t, []string{"listenPort", "brokerName"}, known)
	require.Equal(t, "listenPrt (did you mean listenPort?), zzz", DescribeUnknown([]string{"listenPrt", "zzz"}, known))
}
