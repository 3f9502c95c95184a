package embedded

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/startup"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

func inProcessConfig(t *testing.T, bind string, listenPort int) *broker.StartupConfig {
	sc := &broker.StartupConfig{Broker: broker.DefaultBrokerConfig(), Store: store.DefaultMessageStoreConfig(),
		Keys: startup.ServerKeys{BindAddress: bind}}
	sc.Broker.ListenPort = listenPort
	sc.Broker.NamesrvAddr = ""
	sc.Store.StorePathRootDir = t.TempDir()
	return sc
}

// TestInProcessListenAddr: the in-process name server listens on the broker's bindAddress, on
// 9876, or on an ephemeral port for an ephemeral broker.
func TestInProcessListenAddr(t *testing.T) {
	require.Equal(t, "0.0.0.0:9876", inProcessListenAddr(inProcessConfig(t, "0.0.0.0", 10911)))
	require.Equal(t, "127.0.0.1:0", inProcessListenAddr(inProcessConfig(t, "127.0.0.1", 0)))
	require.Equal(t, "127.0.0.1", registerHost("0.0.0.0"))
	require.Equal(t, "127.0.0.1", registerHost("::"))
	require.Equal(t, "10.0.0.5", registerHost("10.0.0.5"))
}

// TestStartInProcessNamesrv: it starts a name server where the broker binds, keeps its
// kvConfig.json under storePathRootDir/namesrv, and points the broker's namesrvAddr at it
// (loopback for an unspecified bindAddress).
func TestStartInProcessNamesrv(t *testing.T) {
	for _, bind := range []string{"127.0.0.1", "0.0.0.0"} {
		sc := inProcessConfig(t, bind, 0)
		ns, err := StartInProcessNamesrv(sc, nil)
		require.NoError(t, err, bind)
		require.Equal(t, "127.0.0.1:"+strconv.Itoa(ns.Port()), sc.Broker.NamesrvAddr, bind)
		c, err := net.Dial("tcp", sc.Broker.NamesrvAddr)
		require.NoError(t, err, bind)
		require.NoError(t, c.Close())
		require.Equal(t, bind+":0", ns.ServerConfig.ListenAddr, "it listens where the broker binds")
		require.NoError(t, ns.KVConfigManager.PutKVConfig("ns", "k", "v"))
		_, err = os.Stat(filepath.Join(sc.Store.StorePathRootDir, "namesrv", "kvConfig.json"))
		require.NoError(t, err, "kvConfig.json under storePathRootDir/namesrv")
		ns.Shutdown()
	}
}

// TestStartInProcessNamesrvFails: a name server that cannot listen (its port, 9876 beside a
// broker on 10911, is taken) is an error naming the in-process name server, and the broker's
// namesrvAddr stays unset.
func TestStartInProcessNamesrvFails(t *testing.T) {
	if l, err := net.Listen("tcp", "127.0.0.1:9876"); err == nil { // else someone holds it already
		defer l.Close()
	}
	sc := inProcessConfig(t, "127.0.0.1", 10911)
	ns, err := StartInProcessNamesrv(sc, nil)
	require.Nil(t, ns)
	require.ErrorContains(t, err, "in-process name server: ")
	require.Empty(t, sc.Broker.NamesrvAddr)
}
