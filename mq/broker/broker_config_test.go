package broker

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// TestDefaultBrokerConfig pins RocketMQ 4.9's BrokerConfig defaults (and our brokerIP1).
func TestDefaultBrokerConfig(t *testing.T) {
	c := DefaultBrokerConfig()
	require.Equal(t, "DefaultCluster", c.BrokerClusterName)
	require.NotEmpty(t, c.BrokerName, "host name")
	require.Equal(t, int64(0), c.BrokerID)
	require.Equal(t, "127.0.0.1", c.BrokerIP1)
	require.Equal(t, 10911, c.ListenPort)
	require.True(t, c.AutoCreateTopicEnable)
	require.Equal(t, 8, c.DefaultTopicQueueNums)
	require.True(t, c.AutoCreateSubscriptionGroup)
	require.Equal(t, 30*time.Second, c.RegisterNameServerPeriod)
	require.Equal(t, 6*time.Second, c.RegisterBrokerTimeout)
	require.True(t, c.LongPollingEnable)
	require.Equal(t, time.Second, c.ShortPollingTime)
	require.Equal(t, 6, c.BrokerPermission)
	require.Equal(t, "DefaultRegion", c.RegionID)
	require.True(t, c.TraceOn)
	require.Equal(t, 120*time.Second, c.ChannelExpiredTimeout)
	require.Equal(t, 10*time.Second, c.ClientHousekeepingInterval)
	require.NoError(t, c.Validate())
}

func TestBrokerConfigValidate(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*BrokerConfig)
		want   string
	}{
		{"negative id", func(c *BrokerConfig) { c.BrokerID = -1 }, "brokerId"},
		{"no name", func(c *BrokerConfig) { c.BrokerName = "" }, "brokerName"},
		{"ip1 not an IP", func(c *BrokerConfig) { c.BrokerIP1 = "localhost" }, "brokerIP1"},
		{"ip2 not an IP", func(c *BrokerConfig) { c.BrokerIP2 = "host" }, "brokerIP2"},
		{"port", func(c *BrokerConfig) { c.ListenPort = 70000 }, "listenPort"},
		{"queues", func(c *BrokerConfig) { c.DefaultTopicQueueNums = 0 }, "defaultTopicQueueNums"},
		{"namesrv", func(c *BrokerConfig) { c.NamesrvAddr = "127.0.0.1:9876;nohost" }, "nohost"},
		{"pool", func(c *BrokerConfig) { c.PullMessageThreadPoolNums = 0 }, "pullMessageThreadPoolNums"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultBrokerConfig()
			tc.mutate(&c)
			err := c.Validate()
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
		})
	}
	c := DefaultBrokerConfig()
	c.NamesrvAddr = " 127.0.0.1:9876 ; 127.0.0.2:9876;"
	require.Equal(t, []string{"127.0.0.1:9876", "127.0.0.2:9876"}, c.NamesrvAddrList())
}

// TestPropertiesOverlay: RocketMQ keys, '#' comments, durations in ms, store keys go to the
// store config, unknown keys are reported, not-built keys are set apart for checkNotBuilt.
func TestPropertiesOverlay(t *testing.T) {
	text := `# broker.conf
brokerClusterName = C1
brokerName=broker-b
brokerId=0
listenPort=20911
autoCreateTopicEnable=false
registerNameServerPeriod=15000
flushDiskType=ASYNC_FLUSH
mappedFileSizeCommitLog=65536
someFutureKey=1
duplicationEnable=false
aclEnable=true
transientStorePoolEnable=true
`
	c := DefaultBrokerConfig()
	s := store.DefaultMessageStoreConfig()
	unknown, notBuilt, err := applyProperties(text, &c, &s)
	require.NoError(t, err)
	require.Equal(t, []string{"someFutureKey"}, unknown)
	require.Equal(t, map[string]string{"duplicationEnable": "false"}, notBuilt)
	require.True(t, c.AclEnable, "aclEnable is a broker key since ACL is built")
	require.True(t, s.TransientStorePoolEnable, "a store key since the pool is built")
	require.Equal(t, "C1", c.BrokerClusterName)
	require.Equal(t, "broker-b", c.BrokerName)
	require.Equal(t, 20911, c.ListenPort)
	require.False(t, c.AutoCreateTopicEnable)
	require.Equal(t, 15*time.Second, c.RegisterNameServerPeriod)
	require.Equal(t, 65536, s.MappedFileSizeCommitLog)

	_, _, err = applyProperties("listenPort=abc\n", &c, &s)
	require.ErrorContains(t, err, "listenPort")
	_, _, err = applyProperties("justoneword\n", &c, &s)
	require.ErrorContains(t, err, "line 1")
	require.Contains(t, c.String(), "registerNameServerPeriod=15000\n", "durations print in ms")
}

// TestBrokerStartupPrintAndConfigFile: -p prints the effective config (with -c and -n applied)
// and starts nothing.
func TestBrokerStartupPrintAndConfigFile(t *testing.T) {
	dir := t.TempDir()
	conf := writeConf(t, "brokerName=broker-x", "storePathRootDir="+dir)
	var out, errOut bytes.Buffer
	b, err := BrokerStartup([]string{"-c", conf, "-n", "127.0.0.1:9876", "-p"}, &out, &errOut, nil)
	require.NoError(t, err)
	require.Nil(t, b)
	require.Contains(t, out.String(), "brokerName=broker-x\n")
	require.Contains(t, out.String(), "namesrvAddr=127.0.0.1:9876\n")
	require.Contains(t, out.String(), "storePathRootDir="+dir+"\n")

	_, err = BrokerStartup([]string{"-x"}, &out, &errOut, nil)
	require.Error(t, err)
}

// TestBrokerStartupRuns starts a broker from the command line on an ephemeral port.
func TestBrokerStartupRuns(t *testing.T) {
	dir := t.TempDir()
	conf := writeConf(t, "brokerName=broker-x", "listenPort=0", "namesrvAddr=", "storePathRootDir="+dir,
		"mappedFileSizeCommitLog=65536", "mappedFileSizeConsumeQueue=2000")
	var out, errOut bytes.Buffer
	b, err := BrokerStartup([]string{"-c", conf}, &out, &errOut, nil)
	require.NoError(t, err, errOut.String())
	defer b.Shutdown()
	require.Contains(t, out.String(), "boot success")
	require.NotEqual(t, "127.0.0.1:0", b.BrokerAddr())
}

// TestListenAddr: listenPort wins; with listenPort 0 the server config's port is used (0 =
// ephemeral); the host comes from the server config.
func TestListenAddr(t *testing.T) {
	cases := []struct {
		addr string
		port int
		want string
	}{
		{"", 10911, ":10911"},
		{"127.0.0.1:0", 0, "127.0.0.1:0"},
		{"127.0.0.1:5555", 0, "127.0.0.1:5555"},
		{"127.0.0.1:5555", 10911, "127.0.0.1:10911"},
		{":8888", 10911, ":10911"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, listenAddr(c.addr, c.port), "%q %d", c.addr, c.port)
	}
}

// TestNewBrokerControllerValidates: invalid configs are refused before anything runs.
func TestNewBrokerControllerValidates(t *testing.T) {
	cfg := DefaultBrokerConfig()
	cfg.BrokerName = ""
	_, err := NewBrokerController(cfg, remoting.ServerConfig{}, store.DefaultMessageStoreConfig(), nil)
	require.ErrorContains(t, err, "brokerName")
	cfg = DefaultBrokerConfig()
	sc := store.DefaultMessageStoreConfig()
	sc.BrokerRole = store.Slave
	_, err = CreateBrokerController(cfg, remoting.ServerConfig{}, sc, nil)
	require.ErrorContains(t, err, "brokerId must be > 0", "a slave needs brokerId > 0")
}

// applyProperties (for the config tests) overlays properties text onto the broker and store configs. It returns the
// keys neither config knows (sorted; applied nowhere) and, apart, the ones of notBuiltKeys
// with their values (for checkNotBuilt). A line that is not key=value or a value that does
// not parse is an error naming it.
func applyProperties(text string, cfg *BrokerConfig, storeCfg *store.MessageStoreConfig, more ...any) (unknown []string,
	notBuilt map[string]string, err error) {
	props, err := conf.ParseProperties(strings.NewReader(text))
	if err != nil {
		return nil, nil, err
	}
	all, err := conf.Apply(props, append([]any{cfg, storeCfg}, more...)...)
	if err != nil {
		return nil, nil, err
	}
	unknown, notBuilt = splitNotBuilt(props, all)
	return unknown, notBuilt, nil
}
