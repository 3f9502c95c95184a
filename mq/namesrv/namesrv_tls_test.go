package namesrv

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf/conftest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/remotingtest"
)

// askTopicList sends GET_ALL_TOPIC_LIST_FROM_NAMESERVER on a fresh client (plain when cfg is
// nil) and returns the error of the round trip.
func askTopicList(t *testing.T, addr string, cfg *tls.Config) error {
	t.Helper()
	c := remoting.NewClient(remoting.ClientConfig{TLS: cfg, ConnectTimeout: 3 * time.Second}, nil)
	defer c.Shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := c.InvokeSync(ctx, addr, remoting.NewRequest(protocol.GetAllTopicListFromNameserver, nil, nil))
	if err == nil {
		require.Equal(t, remoting.Success, resp.Code)
	}
	return err
}

// TestNamesrvReadsTLSKeys: mqnamesrv reads the tls.server.* keys of its -c file as mqbroker
// does (one TlsSystemConfig in Java for both servers): enforcing serves a TLS client and
// refuses a plain one, -p prints the keys, and a mode that needs a certificate it lacks, or a
// bad mode, is refused at start with the key's name.
func TestNamesrvReadsTLSKeys(t *testing.T) {
	dir := t.TempDir()
	cert, key := remotingtest.SelfSignedCert(t, dir)
	kv := "kvConfigPath=" + filepath.Join(dir, "kv.json")
	file := conftest.Write(t, "namesrv.conf", "listenPort=0", "bindAddress=127.0.0.1", kv,
		"tls.server.mode=enforcing", "tls.server.certPath="+cert, "tls.server.keyPath="+key)

	c, err := Main([]string{"-c", file}, io.Discard, io.Discard, nil)
	require.NoError(t, err)
	defer c.Shutdown()
	insecure, err := remoting.TLSClientKeys{Enable: true}.Build()
	require.NoError(t, err)
	require.NoError(t, askTopicList(t, c.Addr(), insecure), "a TLS client is served")
	require.Error(t, askTopicList(t, c.Addr(), nil), "enforcing: a plain client is not served")

	var out bytes.Buffer
	_, err = CreateNamesrvController([]string{"-c", file, "-p"}, &out, io.Discard, nil)
	require.ErrorIs(t, err, ErrPrintedConfig)
	require.Contains(t, out.String(), "tls.server.mode=enforcing\n")
	require.Contains(t, out.String(), "tls.server.certPath="+cert+"\n")

	_, err = Main([]string{"-c", conftest.Write(t, "namesrv.conf", "listenPort=0", kv, "tls.server.mode=enforcing")}, io.Discard, io.Discard, nil)
	require.ErrorContains(t, err, "tls.server.certPath")
	_, err = Main([]string{"-c", conftest.Write(t, "namesrv.conf", "listenPort=0", kv, "tls.server.mode=sometimes")}, io.Discard, io.Discard, nil)
	require.ErrorContains(t, err, "sometimes")
}
