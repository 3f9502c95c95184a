package broker

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
)

// TestPrintRefusesWhatStartRefuses: -p runs the validation a start runs, so an invalid value
// exits -p with the message the start gives, and a start refuses it before anything runs (no
// banner, no store).
func TestPrintRefusesWhatStartRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		args func(t *testing.T) []string
		want string
	}{
		{"flushDiskType=FAST", func(t *testing.T) []string { return []string{"-c", writeConf(t, "flushDiskType=FAST")} },
			`flushDiskType="FAST": want ASYNC_FLUSH or SYNC_FLUSH`},
		{"logLevel=TRACE", func(t *testing.T) []string { return []string{"-c", writeConf(t, "logLevel=TRACE")} },
			`logLevel "TRACE": want DEBUG, INFO, WARN or ERROR`},
		{"-n garbage", func(t *testing.T) []string { return []string{"-n", "garbage"} },
			`namesrvAddr entry "garbage" is not ip:port`},
		{"-n with a bad port", func(t *testing.T) []string { return []string{"-n", "127.0.0.1:9876;127.0.0.1:port"} },
			`namesrvAddr entry "127.0.0.1:port" is not ip:port`},
		{"bindAddress=localhost", func(t *testing.T) []string { return []string{"-c", writeConf(t, "bindAddress=localhost")} },
			`bindAddress "localhost" is not an IP address`},
		{"com.rocketmq.remoting.frameMaxLength=0", func(t *testing.T) []string {
			return []string{"-c", writeConf(t, "com.rocketmq.remoting.frameMaxLength=0")}
		}, `com.rocketmq.remoting.frameMaxLength must be >= 1024 bytes, got 0`},
		{"serverChannelMaxInflight=-1", func(t *testing.T) []string { return []string{"-c", writeConf(t, "serverChannelMaxInflight=-1")} },
			`serverChannelMaxInflight must be > 0, got -1`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			_, printErr := ParseCommandLine(append(c.args(t), "-p"), &out, &errOut)
			require.ErrorContains(t, printErr, c.want)
			require.NotContains(t, out.String(), "brokerName=", "nothing printed for an invalid config")

			out.Reset()
			b, startErr := BrokerStartup(c.args(t), &out, &errOut, nil)
			require.Nil(t, b)
			require.EqualError(t, startErr, printErr.Error(), "-p and a start say the same")
			require.NotContains(t, out.String(), "boot success")
		})
	}
}

// TestValidationIsShared: configs built in code (embedded clusters, tests) are refused by
// NewBrokerController with the message ParseCommandLine gives for the same values.
func TestValidationIsShared(t *testing.T) {
	var out, errOut bytes.Buffer
	_, parseErr := ParseCommandLine([]string{"-c", writeConf(t, "logLevel=TRACE")}, &out, &errOut)
	require.Error(t, parseErr)
	cfg, storeCfg := testConfigs(t.TempDir())
	cfg.LogLevel = "TRACE"
	_, err := NewBrokerController(cfg, remoting.ServerConfig{}, storeCfg, nil)
	require.EqualError(t, err, parseErr.Error())
}

// TestUnknownKeyDidYouMean: an unknown key one or two letters from a known one is named with
// that key, in -p's warning and in a start's log; a key close to none is named alone.
func TestUnknownKeyDidYouMean(t *testing.T) {
	dir := t.TempDir()
	conf := writeConf(t, "listenPort=0", "namesrvAddr=", "storePathRootDir="+dir, "mappedFileSizeCommitLog=65536",
		"flushDisktype=ASYNC_FLUSH", "brokerNmae=x", "bindAdress=127.0.0.1", "somethingElse=1")
	var out, errOut bytes.Buffer
	_, err := ParseCommandLine([]string{"-c", conf, "-p"}, &out, &errOut)
	require.NoError(t, err)
	require.Contains(t, errOut.String(), "unknown config keys ignored: bindAdress (did you mean bindAddress?), "+
		"brokerNmae (did you mean brokerName?), flushDisktype (did you mean flushDiskType?), somethingElse\n")

	errOut.Reset()
	b, err := BrokerStartup([]string{"-c", conf}, &out, &errOut, nil)
	require.NoError(t, err, errOut.String())
	defer b.Shutdown()
	require.Contains(t, errOut.String(), "flushDisktype (did you mean flushDiskType?)")
}

// TestBindAddress: bindAddress (RocketMQ 5's NettyServerConfig key, default 0.0.0.0) is where
// the main and the fast (VIP) server listen; brokerIP1 stays what the broker publishes.
func TestBindAddress(t *testing.T) {
	var out, errOut bytes.Buffer
	sc, err := ParseCommandLine(nil, &out, &errOut)
	require.NoError(t, err)
	require.Equal(t, "0.0.0.0", sc.Keys.BindAddress, "RocketMQ's default: every interface")
	out.Reset()
	_, err = ParseCommandLine([]string{"-p"}, &out, &errOut)
	require.NoError(t, err)
	require.Contains(t, out.String(), "\nbindAddress=0.0.0.0\n", "-p prints the key")

	for _, bind := range []string{"127.0.0.1", "0.0.0.0"} {
		t.Run(bind, func(t *testing.T) {
			conf := writeConf(t, "bindAddress="+bind, "listenPort=0", "namesrvAddr=", "storePathRootDir="+t.TempDir(),
				"mappedFileSizeCommitLog=65536")
			var out, errOut bytes.Buffer
			b, err := BrokerStartup([]string{"-c", conf}, &out, &errOut, nil)
			require.NoError(t, err, errOut.String())
			defer b.Shutdown()
			for _, s := range []*net.TCPAddr{b.remotingServer.Addr(), b.fastRemotingServer.Addr()} {
				if bind == "127.0.0.1" {
					require.Equal(t, "127.0.0.1", s.IP.String())
				} else {
					require.True(t, s.IP.IsUnspecified(), "%s listens on every interface", s)
				}
			}
			host, _, err := net.SplitHostPort(b.BrokerAddr())
			require.NoError(t, err)
			require.Equal(t, "127.0.0.1", host, "the published address is brokerIP1's")
		})
	}
}

// TestPrintReadsBack: with -c, -p's stdout is the properties alone (the "load config properties
// file OK" line is not among them), so it reads back as a -c file with the same result.
func TestPrintReadsBack(t *testing.T) {
	var out, errOut bytes.Buffer
	_, err := ParseCommandLine([]string{"-c", writeConf(t, "brokerName=broker-x", "listenPort=10921"), "-p"}, &out, &errOut)
	require.NoError(t, err)
	require.NotContains(t, out.String(), "load config properties file OK")
	first := out.String()

	path := filepath.Join(t.TempDir(), "printed.conf")
	require.NoError(t, os.WriteFile(path, out.Bytes(), 0o644))
	out.Reset()
	_, err = ParseCommandLine([]string{"-c", path, "-p"}, &out, &errOut)
	require.NoError(t, err, "the printed config is a valid -c file")
	require.Equal(t, first, out.String())
	require.Contains(t, first, "brokerName=broker-x\n")
}
