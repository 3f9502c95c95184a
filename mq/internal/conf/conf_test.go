package conf

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type testCfg struct {
	Name     string        `prop:"brokerName"`
	Port     int           `prop:"listenPort"`
	Auto     bool          `prop:"autoCreateTopicEnable"`
	Flush    time.Duration `prop:"flushIntervalCommitLog"`
	Scan     time.Duration `prop:"scanInterval,s"`
	Untagged int
}

// Java Properties syntax: k=v, k = v, k:v, # and ! comments (MixAll#properties2Object).
func TestParseAndApply(t *testing.T) {
	props, err := ParseProperties(strings.NewReader("# comment\n! also\n\nbrokerName = broker-b\nlistenPort=10921\nautoCreateTopicEnable:false\nflushIntervalCommitLog=250\nscanInterval=7\nnoSuchKey=1\n"))
	require.NoError(t, err)
	c := testCfg{Auto: true}
	unknown, err := Apply(props, &c)
	require.NoError(t, err)
	require.Equal(t, []string{"noSuchKey"}, unknown)
	require.Equal(t, testCfg{Name: "broker-b", Port: 10921, Auto: false, Flush: 250 * time.Millisecond, Scan: 7 * time.Second}, c)
	require.Equal(t, "brokerName=broker-b\nlistenPort=10921\nautoCreateTopicEnable=false\nflushIntervalCommitLog=250\nscanInterval=7\n", Format(&c))
}

func TestBadInput(t *testing.T) {
	_, err := ParseProperties(strings.NewReader("novalue\n"))
	require.ErrorContains(t, err, "line 1")
	_, err = Apply(map[string]string{"listenPort": "abc"}, &testCfg{})
	require.ErrorContains(t, err, "listenPort")
}

// FuzzParseProperties: a properties file never panics the reader, and a parsed file applies
// without panicking either (it may be refused with an error).
func FuzzParseProperties(f *testing.F) {
	f.Add("brokerName=a\n# c\nlistenPort = 1\n")
	f.Add("x:y\n!z\n=\n")
	f.Fuzz(func(t *testing.T, text string) {
		props, err := ParseProperties(strings.NewReader(text))
		if err != nil {
			return
		}
		var c testCfg
		_, _ = Apply(props, &c)
	})
}
