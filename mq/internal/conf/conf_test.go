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
	require.ErrorContains(t, err, "want a whole number")
	require.NotContains(t, err.Error(), "strconv", "no Go internals in the text")
	_, err = Apply(map[string]string{"listenPort": "99999999999999999999"}, &testCfg{})
	require.ErrorContains(t, err, "out of range")
	_, err = Apply(map[string]string{"autoCreateTopicEnable": "yes"}, &testCfg{})
	require.ErrorContains(t, err, "want true or false")
	_, err = Apply(map[string]string{"flushIntervalCommitLog": "1s"}, &testCfg{})
	require.ErrorContains(t, err, "want a whole number of milliseconds")
	_, err = Apply(map[string]string{"scanInterval": "1m"}, &testCfg{})
	require.ErrorContains(t, err, "want a whole number of seconds")
}

// A blank separates key and value too, as in java.util.Properties ("k v", "k = v").
func TestBlankSeparator(t *testing.T) {
	props, err := ParseProperties(strings.NewReader("brokerName  broker-c\nlistenPort\t10931\nautoCreateTopicEnable : true\n"))
	require.NoError(t, err)
	require.Equal(t, map[string]string{"brokerName": "broker-c", "listenPort": "10931", "autoCreateTopicEnable": "true"}, props)
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
