package namesrv

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf/conftest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// TestNamesrvBindAddress: bindAddress (default 0.0.0.0, every interface) is the IP the name
// server listens on.
func TestNamesrvBindAddress(t *testing.T) {
	kv := "kvConfigPath=" + filepath.Join(t.TempDir(), "kv.json")
	var out bytes.Buffer
	_, err := CreateNamesrvController([]string{"-p"}, &out, io.Discard, nil)
	require.ErrorIs(t, err, ErrPrintedConfig)
	require.Contains(t, out.String(), "bindAddress=0.0.0.0\n")

	c, err := Main([]string{"-c", conftest.Write(t, "namesrv.conf", "listenPort=0", "bindAddress=127.0.0.1", kv)}, &out, io.Discard, nil)
	require.NoError(t, err)
	defer c.Shutdown()
	host, _, err := net.SplitHostPort(c.Addr())
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1", host)

	all, err := Main([]string{"-c", conftest.Write(t, "namesrv.conf", "listenPort=0", kv+"2")}, &out, io.Discard, nil)
	require.NoError(t, err)
	defer all.Shutdown()
	require.True(t, all.server.Addr().IP.IsUnspecified(), "the default listens on every interface: %s", all.Addr())
}

// TestNamesrvPrintValidates: -p refuses an invalid value with the message a start gives, and
// an unknown key close to a known one gets a "did you mean".
func TestNamesrvPrintValidates(t *testing.T) {
	for _, line := range []string{"logLevel=TRACE", "bindAddress=localhost", "listenPort=70000",
		"com.rocketmq.remoting.frameMaxLength=10", "serverChannelMaxIdleTimeSeconds=0"} {
		file := conftest.Write(t, "namesrv.conf", line, "listenPort=0")
		if line == "listenPort=70000" {
			file = conftest.Write(t, "namesrv.conf", line)
		}
		var out bytes.Buffer
		_, printErr := CreateNamesrvController([]string{"-c", file, "-p"}, &out, io.Discard, nil)
		require.Error(t, printErr, line)
		require.NotErrorIs(t, printErr, ErrPrintedConfig, line)
		_, startErr := Main([]string{"-c", file}, &out, io.Discard, nil)
		require.EqualError(t, startErr, printErr.Error(), line)
		require.NotContains(t, out.String(), "boot success", line)
	}

	var out, logs bytes.Buffer
	tr := trace.New(slog.New(slog.NewTextHandler(&logs, nil)), "namesrv")
	_, err := CreateNamesrvController([]string{"-c", conftest.Write(t, "namesrv.conf", "listenPrt=1"), "-p"}, &out, io.Discard, tr)
	require.ErrorIs(t, err, ErrPrintedConfig)
	require.Contains(t, logs.String(), `level=WARN msg="unknown config keys ignored" keys="listenPrt (did you mean listenPort?)"`)
	require.NotContains(t, out.String(), "listenPrt", "stdout holds only the properties")
	_, err = conf.ParseProperties(strings.NewReader(out.String()))
	require.NoError(t, err, "-p's output reads back as a properties file")

	out.Reset()
	var errOut bytes.Buffer
	_, err = CreateNamesrvController([]string{"-x"}, &out, &errOut, nil)
	require.ErrorIs(t, err, conf.ErrUsage, "a bad flag: printed by the flag package, not again")
	require.Empty(t, out.String(), "a bad flag's error and the usage go to stderr, not stdout")
	require.Contains(t, errOut.String(), "flag provided but not defined: -x")
	require.Contains(t, errOut.String(), "Usage: mqnamesrv")
}

// TestNamesrvServerBounds: the name server reads the remoting bounds under the broker's keys
// (startup.ServerKeys) and its server runs with them.
func TestNamesrvServerBounds(t *testing.T) {
	c, err := CreateNamesrvController([]string{"-c", conftest.Write(t, "namesrv.conf", "listenPort=0",
		"serverWorkerThreads=2", "serverChannelMaxIdleTimeSeconds=30", "com.rocketmq.remoting.frameMaxLength=65536",
		"serverChannelMaxInflight=32")}, io.Discard, io.Discard, nil)
	require.NoError(t, err)
	require.Equal(t, []any{2, 30 * time.Second, 65536, 32}, []any{c.ServerConfig.ServerWorkerThreads,
		c.ServerConfig.ChannelMaxIdle, c.ServerConfig.MaxFrameSize, c.ServerConfig.ChannelMaxInflight})
}
