package broker

import (
	"bytes"
	"log/slog"
	"net"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf/conftest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// writeConf writes a broker.conf of lines into a temp dir and returns its path.
func writeConf(t *testing.T, lines ...string) string {
	return conftest.Write(t, "broker.conf", lines...)
}

// TestNotBuiltSettingsAreRefused: a setting whose feature is not built is refused with a
// message naming the key; the same key with its feature-off value (Java's default) is
// accepted without an unknown-key warning, so a stock broker.conf starts.
func TestNotBuiltSettingsAreRefused(t *testing.T) {
	refused := []struct{ line, key string }{
		{"enableDLegerCommitLog=true", "enableDLegerCommitLog"},
		{"enablePropertyFilter=true", "enablePropertyFilter"},
		{"duplicationEnable=true", "duplicationEnable"},
		{"enableConsumeQueueExt=true", "enableConsumeQueueExt"},
		{"fetchNamesrvAddrByAddressServer=true", "fetchNamesrvAddrByAddressServer"},
		{"compressedRegister=true", "compressedRegister"},
		{"enableCalcFilterBitMap=true", "enableCalcFilterBitMap"},
	}
	for _, r := range refused {
		t.Run(r.line, func(t *testing.T) {
			var out, errOut bytes.Buffer
			_, err := ParseCommandLine([]string{"-c", writeConf(t, "brokerId=1", r.line)}, &out, &errOut)
			require.Error(t, err)
			require.ErrorContains(t, err, r.key)
			require.ErrorContains(t, err, "not built yet")
		})
	}

	var out, errOut bytes.Buffer
	sc, err := ParseCommandLine([]string{"-c", writeConf(t,
		"brokerRole=ASYNC_MASTER", "slaveReadEnable=false", "transientStorePoolEnable=false",
		"enableDLegerCommitLog=false", "duplicationEnable=False", "messageIndexEnable=true", "messageIndexEnable=false")},
		&out, &errOut)
	require.NoError(t, err)
	require.Empty(t, sc.UnknownKeys, "feature-off values of known RocketMQ keys are not 'unknown'")

	// Master/slave replication is built (chapter 9): the roles and slaveReadEnable start,
	// from a broker.conf and from configs built in code.
	for _, lines := range [][]string{{"brokerRole=SLAVE", "brokerId=1"}, {"brokerRole=SYNC_MASTER"}, {"slaveReadEnable=true"}} {
		var out, errOut bytes.Buffer
		sc, err := ParseCommandLine([]string{"-c", writeConf(t, lines...)}, &out, &errOut)
		require.NoError(t, err, "%v", lines)
		require.Empty(t, sc.UnknownKeys)
	}
	cfg, storeCfg := testConfigs(t.TempDir())
	storeCfg.BrokerRole = store.SyncMaster
	_, err = NewBrokerController(cfg, remoting.ServerConfig{}, storeCfg, nil)
	require.NoError(t, err)
}

// TestSyncFlushAndPoolStart: flushDiskType=SYNC_FLUSH and transientStorePoolEnable=true are
// built now: a broker.conf with either starts.
func TestSyncFlushAndPoolStart(t *testing.T) {
	for _, line := range []string{"flushDiskType=SYNC_FLUSH", "transientStorePoolEnable=true"} {
		var out, errOut bytes.Buffer
		b, err := BrokerStartup([]string{"-c", writeConf(t, line, "listenPort=0", "namesrvAddr=",
			"mappedFileSizeCommitLog=65536", "transientStorePoolSize=2", "storePathRootDir="+t.TempDir())}, &out, &errOut, nil)
		require.NoError(t, err, "%s: %s", line, errOut.String())
		b.Shutdown()
	}
}

// TestUnknownKeysWarnedAndIgnored: RocketMQ ignores keys no config object has; we do too,
// after a warning in the operating log.
func TestUnknownKeysWarnedAndIgnored(t *testing.T) {
	dir := t.TempDir()
	conf := writeConf(t, "brokerName=broker-u", "listenPort=0", "namesrvAddr=", "storePathRootDir="+dir,
		"mappedFileSizeCommitLog=65536", "someFutureKey=1", "anotherOne = x")
	var out, errOut bytes.Buffer
	b, err := BrokerStartup([]string{"-c", conf}, &out, &errOut, nil)
	require.NoError(t, err, errOut.String())
	defer b.Shutdown()
	require.Contains(t, errOut.String(), "unknown config keys ignored")
	require.Contains(t, errOut.String(), `keys="anotherOne, someFutureKey"`)
	require.Contains(t, errOut.String(), `msg="broker started"`, "the operating log goes through slog")

	out.Reset()
	errOut.Reset()
	_, err = BrokerStartup([]string{"-c", conf, "-p"}, &out, &errOut, nil)
	require.NoError(t, err)
	require.Contains(t, errOut.String(), "unknown config keys ignored: anotherOne, someFutureKey")
}

// TestMasterBrokerIDIgnoredIsWarned: a slave's config without brokerRole (or with the key
// mistyped) starts a master, whose brokerId is 0 as in Java's BrokerStartup; the log says in a
// WARN which brokerId was ignored and what makes a slave, and the "broker started" line names
// the role and the HA address. A master configured with brokerId=0 gets no such WARN.
func TestMasterBrokerIDIgnoredIsWarned(t *testing.T) {
	var out, errOut bytes.Buffer
	b, err := BrokerStartup([]string{"-c", writeConf(t, "brokerName=broker-w", "brokerId=1", "brokerRol=SLAVE",
		"listenPort=0", "namesrvAddr=", "mappedFileSizeCommitLog=65536", "storePathRootDir="+t.TempDir())}, &out, &errOut, nil)
	require.NoError(t, err, errOut.String())
	defer b.Shutdown()
	require.Equal(t, int64(0), b.cfg.BrokerID)
	log := errOut.String()
	require.Regexp(t, `level=WARN msg="brokerId=1 ignored: a master \(brokerRole=ASYNC_MASTER\) has brokerId 0; set brokerRole=SLAVE for a slave"`, log)
	require.Regexp(t, `msg="broker started".* brokerId=0 brokerRole=ASYNC_MASTER .*haAddr=127\.0\.0\.1:[1-9][0-9]*`, log)

	errOut.Reset()
	b2, err := BrokerStartup([]string{"-c", writeConf(t, "brokerName=broker-w2", "brokerId=0", "brokerRole=SYNC_MASTER",
		"listenPort=0", "namesrvAddr=", "mappedFileSizeCommitLog=65536", "storePathRootDir="+t.TempDir())}, &out, &errOut, nil)
	require.NoError(t, err, errOut.String())
	defer b2.Shutdown()
	require.NotContains(t, errOut.String(), "ignored: a master")
	require.Contains(t, errOut.String(), "brokerRole=SYNC_MASTER")
}

// TestNamesrvAddrSources pins the precedence of BrokerStartup: NAMESRV_ADDR < namesrvAddr in
// the -c file < -n; the list is ';'-separated.
func TestNamesrvAddrSources(t *testing.T) {
	t.Setenv("NAMESRV_ADDR", "127.0.0.9:9876")
	var out, errOut bytes.Buffer
	sc, err := ParseCommandLine(nil, &out, &errOut)
	require.NoError(t, err)
	require.Equal(t, "127.0.0.9:9876", sc.Broker.NamesrvAddr, "NAMESRV_ADDR is the default")

	conf := writeConf(t, "namesrvAddr=127.0.0.8:9876")
	sc, err = ParseCommandLine([]string{"-c", conf}, &out, &errOut)
	require.NoError(t, err)
	require.Equal(t, "127.0.0.8:9876", sc.Broker.NamesrvAddr, "the file beats the environment")

	sc, err = ParseCommandLine([]string{"-c", conf, "-n", "127.0.0.1:9876;127.0.0.2:9877"}, &out, &errOut)
	require.NoError(t, err)
	require.Equal(t, []string{"127.0.0.1:9876", "127.0.0.2:9877"}, sc.Broker.NamesrvAddrList(), "-n beats both")
}

// TestLogLevel: logLevel picks the operating log's level (default INFO); a bad value is refused.
func TestLogLevel(t *testing.T) {
	for in, want := range map[string]slog.Level{"DEBUG": slog.LevelDebug, "info": slog.LevelInfo,
		"Warn": slog.LevelWarn, "WARNING": slog.LevelWarn, "ERROR": slog.LevelError} {
		got, err := conf.ParseLogLevel(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	_, err := conf.ParseLogLevel("LOUD")
	require.Error(t, err)
	require.Equal(t, "INFO", DefaultBrokerConfig().LogLevel)

	var out, errOut bytes.Buffer
	sc, err := ParseCommandLine([]string{"-c", writeConf(t, "logLevel=WARN")}, &out, &errOut)
	require.NoError(t, err)
	var buf bytes.Buffer
	log := sc.NewLogger(&buf)
	log.Info("quiet")
	log.Warn("loud")
	require.NotContains(t, buf.String(), "quiet")
	require.Contains(t, buf.String(), "loud")

	c := DefaultBrokerConfig()
	c.LogLevel = "LOUD"
	require.ErrorContains(t, c.Validate(), "logLevel")
}

// TestExampleBrokerConf: the example conf/broker.conf of the README parses with no unknown
// keys and gives valid configs.
func TestExampleBrokerConf(t *testing.T) {
	var out, errOut bytes.Buffer
	sc, err := ParseCommandLine([]string{"-c", filepath.Join("..", "..", "conf", "broker.conf")}, &out, &errOut)
	require.NoError(t, err)
	require.Empty(t, sc.UnknownKeys)
	require.NoError(t, sc.Broker.Validate())
	require.NoError(t, sc.Store.Validate())
	require.Equal(t, "broker-a", sc.Broker.BrokerName)
	require.Equal(t, store.AsyncFlush, sc.Store.FlushDiskType)
}

// TestListenPortTaken: a port in use is a clear error naming it, for the main, the fast (VIP)
// and the HA port (listenPort+1; the HA service binds first, with the store, as in Java).
func TestListenPortTaken(t *testing.T) {
	// freePorts takes an ephemeral port P whose neighbours P+d for each d are free at the time.
	freePorts := func(d ...int) net.Listener {
		for range 50 {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			free := true
			for _, k := range d {
				probe, err := net.Listen("tcp", ":"+strconv.Itoa(l.Addr().(*net.TCPAddr).Port+k))
				if err != nil {
					free = false
					break
				}
				probe.Close()
			}
			if free {
				return l
			}
			l.Close()
		}
		t.Fatal("no free port pair")
		return nil
	}
	start := func(listenPort int) error {
		cfg, storeCfg := testConfigs(t.TempDir())
		cfg.ListenPort = listenPort
		b, err := CreateBrokerController(cfg, remoting.ServerConfig{ListenAddr: "127.0.0.1:0"}, storeCfg, nil)
		require.NoError(t, err)
		_, err = Start(b)
		return err
	}

	// the main port P taken (its HA port P+1 and fast port P-2 free)
	ln := freePorts(1, -2)
	defer ln.Close()
	p := ln.Addr().(*net.TCPAddr).Port
	err := start(p)
	require.ErrorContains(t, err, "broker listen port "+strconv.Itoa(p)+" is taken")
	require.ErrorContains(t, err, "address already in use")

	// the fast port P taken: listenPort P+2 (its HA port P+3 free)
	vipLn := freePorts(2, 3)
	defer vipLn.Close()
	vip := vipLn.Addr().(*net.TCPAddr).Port
	require.ErrorContains(t, start(vip+2), "broker fast (VIP) listen port "+strconv.Itoa(vip)+" is taken")

	// the HA port P taken: listenPort P-1
	haLn := freePorts(-1, -3)
	defer haLn.Close()
	ha := haLn.Addr().(*net.TCPAddr).Port
	require.ErrorContains(t, start(ha-1), "broker HA port (haListenPort) "+strconv.Itoa(ha)+" is taken")
}

// TestFastRemotingServer pins Java's fastRemotingServer: it listens on listenPort-2 (an
// ephemeral port with listenPort 0) and serves every code but PULL_MESSAGE.
func TestFastRemotingServer(t *testing.T) {
	for _, c := range []struct{ main, want string }{
		{":10911", ":10909"}, {"127.0.0.1:0", "127.0.0.1:0"}, {"127.0.0.1:20000", "127.0.0.1:19998"},
		{"127.0.0.1:2", "127.0.0.1:0"}, {"bad", ":0"},
	} {
		require.Equal(t, c.want, fastListenAddr(c.main), c.main)
	}

	tb := startTestBroker(t, nil)
	vip := tb.b.VIPAddr()
	require.NotEmpty(t, vip)
	require.NotEqual(t, tb.addr, vip)
	require.NotEqual(t, "127.0.0.1:0", vip)

	// A send over the VIP channel is stored like any other.
	h := sendHeader("VipTopic", 0, map[string]string{})
	resp := invokeWith(t, tb.client, vip, remoting.NewRequest(protocol.SendMessage, protocol.EncodeHeader(h), []byte("v")))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	tb.waitDispatched(t, "VipTopic", 0, 1)

	// Heartbeats and offsets are served; pulls are not (Java registers no PULL_MESSAGE there).
	sub := protocol.SubscriptionData{Topic: "VipTopic", SubString: "*", SubVersion: 1}
	require.Equal(t, int32(protocol.Success), heartbeat(t, tb.client, vip, "10.0.0.1@vip", "vg", sub).Code)
	ph := pullHeader("vg", "VipTopic", 0, 0, protocol.PullFlagSubscription, 0, "*")
	resp = invokeWith(t, tb.client, vip, remoting.NewRequest(protocol.PullMessage, protocol.EncodeHeader(ph), nil))
	require.Equal(t, int32(protocol.RequestCodeNotSupported), resp.Code, resp.Remark)
	resp = tb.pull(t, "vg", "VipTopic", 0, 0, "*")
	require.Equal(t, int32(protocol.Success), resp.Code, "the main port serves pulls")

	tb.b.Shutdown()
	_, err := net.Dial("tcp", vip)
	require.Error(t, err, "Shutdown closes the fast port too")
}

// TestServerBoundsFromConfigFile: the remoting bounds of a broker.conf (NettyServerConfig's
// names; frameMaxLength under its system property's name) reach the servers' config, and -p
// prints them.
func TestServerBoundsFromConfigFile(t *testing.T) {
	var out, errOut bytes.Buffer
	file := writeConf(t, "serverWorkerThreads=4", "serverChannelMaxIdleTimeSeconds=60",
		"com.rocketmq.remoting.frameMaxLength=1048576", "serverChannelMaxInflight=64")
	sc, err := ParseCommandLine([]string{"-c", file}, &out, &errOut)
	require.NoError(t, err)
	require.Equal(t, 4, sc.Server.ServerWorkerThreads)
	require.Equal(t, 60*time.Second, sc.Server.ChannelMaxIdle)
	require.Equal(t, 1048576, sc.Server.MaxFrameSize)
	require.Equal(t, 64, sc.Server.ChannelMaxInflight)
	out.Reset()
	_, err = ParseCommandLine([]string{"-c", file, "-p"}, &out, &errOut)
	require.NoError(t, err)
	for _, line := range []string{"serverWorkerThreads=4", "serverChannelMaxIdleTimeSeconds=60",
		"com.rocketmq.remoting.frameMaxLength=1048576", "serverChannelMaxInflight=64"} {
		require.Contains(t, out.String(), line+"\n")
	}
}
