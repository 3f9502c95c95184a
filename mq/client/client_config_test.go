package client

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// ClientConfig's defaults are Java's (4.9.8): instance DEFAULT, 30 s route poll, 30 s
// heartbeat, 5 s offset persistence, 3 s API timeout; RebalanceService waits 20 s.
func TestDefaultClientConfigMatchesJava(t *testing.T) {
	c := DefaultClientConfig()
	require.Equal(t, "DEFAULT", c.InstanceName)
	require.Equal(t, 30*time.Second, c.PollNameServerInterval)
	require.Equal(t, 30*time.Second, c.HeartbeatBrokerInterval)
	require.Equal(t, 5*time.Second, c.PersistConsumerOffsetInterval)
	require.Equal(t, 20*time.Second, c.RebalanceInterval)
	require.Equal(t, 3*time.Second, c.MQClientAPITimeout)
	require.False(t, c.VIPChannelEnabled)
	filled := ClientConfig{ClientIP: "10.0.0.1"}.WithDefaults()
	require.Equal(t, "10.0.0.1", filled.ClientIP)
	require.Equal(t, 30*time.Second, filled.PollNameServerInterval)
}

// ClientConfig#buildMQClientId is ip@instance[@unit]; changeInstanceNameToPID replaces only
// DEFAULT, with "<pid>#<nanotime>".
func TestBuildMQClientIDAndInstanceName(t *testing.T) {
	for _, tc := range []struct {
		cfg  ClientConfig
		want string
	}{
		{ClientConfig{ClientIP: "10.0.0.1", InstanceName: "x"}, "10.0.0.1@x"},
		{ClientConfig{ClientIP: "10.0.0.1"}, "10.0.0.1@DEFAULT"},
		{ClientConfig{ClientIP: "10.0.0.1", InstanceName: "x", UnitName: "u"}, "10.0.0.1@x@u"},
	} {
		require.Equal(t, tc.want, tc.cfg.BuildMQClientID())
	}
	c := ClientConfig{InstanceName: "DEFAULT"}
	c.ChangeInstanceNameToPID()
	pid, _, ok := strings.Cut(c.InstanceName, "#")
	require.True(t, ok)
	require.Equal(t, strconv.Itoa(os.Getpid()), pid)
	c = ClientConfig{InstanceName: "mine"}
	c.ChangeInstanceNameToPID()
	require.Equal(t, "mine", c.InstanceName)
	require.Equal(t, []string{"a:1", "b:2"}, (&ClientConfig{NamesrvAddr: " a:1; ;b:2;"}).NamesrvAddrList())
	require.NotEmpty(t, LocalAddress())
}
