package startup

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
)

func TestServerKeys(t *testing.T) {
	k := DefaultServerKeys()
	require.NoError(t, k.Validate("namesrv"))
	require.Equal(t, "0.0.0.0:9876", k.ListenAddr(9876))
	k.BindAddress = "::1"
	require.Equal(t, "[::1]:0", k.ListenAddr(0))
	k.BindAddress = "localhost"
	require.EqualError(t, k.Validate("broker"), `broker config: bindAddress "localhost" is not an IP address`)
}

// The memory bounds are read under NettyServerConfig's names (frameMaxLength under its system
// property's name), reach the remoting.ServerConfig, and a bad value is refused naming its key.
func TestServerKeysBounds(t *testing.T) {
	k := DefaultServerKeys()
	var cfg remoting.ServerConfig
	k.ApplyTo(&cfg)
	d := remoting.DefaultServerConfig()
	require.Equal(t, []any{d.MaxFrameSize, d.ChannelMaxIdle, d.ChannelMaxInflight, d.ServerWorkerThreads},
		[]any{cfg.MaxFrameSize, cfg.ChannelMaxIdle, cfg.ChannelMaxInflight, cfg.ServerWorkerThreads})

	props, err := conf.ParseProperties(strings.NewReader("serverWorkerThreads=3\nserverChannelMaxIdleTimeSeconds=30\n" +
		"com.rocketmq.remoting.frameMaxLength=65536\nserverChannelMaxInflight=16\n"))
	require.NoError(t, err)
	unknown, err := conf.Apply(props, &k)
	require.NoError(t, err)
	require.Empty(t, unknown)
	k.BindAddress = DefaultBindAddress
	require.NoError(t, k.Validate("broker"))
	k.ApplyTo(&cfg)
	require.Equal(t, []any{65536, 30 * time.Second, 16, 3},
		[]any{cfg.MaxFrameSize, cfg.ChannelMaxIdle, cfg.ChannelMaxInflight, cfg.ServerWorkerThreads})
	require.Contains(t, conf.Format(&k), "com.rocketmq.remoting.frameMaxLength=65536\n")
	require.Contains(t, conf.Format(&k), "serverChannelMaxIdleTimeSeconds=30\n")

	bad := ServerKeys{BindAddress: DefaultBindAddress}
	err = bad.Validate("namesrv")
	for _, key := range []string{"serverWorkerThreads must be > 0, got 0", "serverChannelMaxIdleTimeSeconds must be >= 1, got 0",
		"com.rocketmq.remoting.frameMaxLength must be >= 1024 bytes, got 0", "serverChannelMaxInflight must be > 0, got 0"} {
		require.ErrorContains(t, err, "namesrv config: "+key)
	}
}
