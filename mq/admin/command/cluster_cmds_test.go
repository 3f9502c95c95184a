package command_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/admin/command"
	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// TestClusterList: one row per broker with the cluster, name, id, address and the version the
// broker reports; hours and disk use are numbers. Java: ClusterListSubCommand.
func TestClusterList(t *testing.T) {
	c := startCluster(t, 2)
	tbl := rows(ok(t, c, "clusterList"))
	require.Equal(t, []string{"#Cluster Name", "#Broker Name", "#BID", "#Addr", "#Version", "#InTPS(LOAD)",
		"#OutTPS(LOAD)", "#PCWait(ms)", "#Hour", "#SPACE"}, tbl[0])
	require.Len(t, tbl, 3)
	for i, r := range tbl[1:] {
		b := c.Brokers[i]
		require.Equal(t, []string{"DefaultCluster", b.BrokerConfig().BrokerName, "0", b.BrokerAddr(), "V4_9_8"}, r[:5])
		_, err := strconv.ParseFloat(r[8], 64)
		require.NoError(t, err, "#Hour")
		_, err = strconv.ParseFloat(r[9], 64)
		require.NoError(t, err, "#SPACE")
	}
	require.Len(t, rows(ok(t, c, "clusterList", "-c", "NoSuchCluster")), 1, "only the header")
}

// TestBrokerStatus: the runtime table's CommitLog offsets follow the messages stored, and the
// earliest message time is the first message's store time. Java: BrokerStatusSubCommand.
func TestBrokerStatus(t *testing.T) {
	c := startCluster(t, 1)
	b := c.Brokers[0]
	kv := keyValues(ok(t, c, "brokerStatus", "-b", b.BrokerAddr()), ":")
	require.Equal(t, "0", kv["commitLogMaxOffset"])
	require.Equal(t, "V4_9_8", kv["brokerVersionDesc"])
	require.Equal(t, "ASYNC_MASTER", kv["brokerRole"])
	require.Regexp(t, `^\[ 0 days, 0 hours, \d+ minutes, \d+ seconds \]$`, kv["runtime"])
	boot, err := strconv.ParseInt(kv["bootTimestamp"], 10, 64)
	require.NoError(t, err)
	require.InDelta(t, time.Now().UnixMilli(), boot, 60_000, "started a moment ago")

	topic := "BS_" + name(t, "")
	createTopic(t, c, topic, 1)
	res := sendTo(t, startProducer(t, c, name(t, "pg_")), primitive.MessageQueue{Topic: topic, BrokerName: "broker-a"}, "m", "", "", 2)
	kv = keyValues(ok(t, c, "brokerStatus", "-c", "DefaultCluster"), ":")
	require.Empty(t, kv["commitLogMaxOffset"], "with -c every line starts with the broker's address")
	kv = keyValues(ok(t, c, "brokerStatus", "-b", b.BrokerAddr()), ":")
	require.Equal(t, strconv.FormatInt(int64(b.MessageStore().GetMaxPhyOffset()), 10), kv["commitLogMaxOffset"])
	require.NotEqual(t, "0", kv["commitLogMaxOffset"])
	require.Equal(t, "2", kv["msgPutTotalTodayNow"], "the two messages stored")
	first, err := b.MessageStore().LookMessageByOffset(0)
	require.NoError(t, err)
	require.Equal(t, strconv.FormatInt(first.StoreTimestamp, 10), kv["earliestMessageTimeStamp"])
	require.Len(t, res, 2)
}

// configLines parses getBrokerConfig's "key=  value" lines under the broker's banner.
func configLines(t testing.TB, out, addr string) map[string]string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Equal(t, "============"+addr+"============", lines[0])
	kv := map[string]string{}
	for _, line := range lines[1:] {
		k, v, ok := strings.Cut(line, "=")
		require.True(t, ok, line)
		kv[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return kv
}

// TestBrokerConfig: getBrokerConfig prints the broker's and store's keys; updateBrokerConfig
// records a value, which getBrokerConfig then shows and which is written to
// config/broker.properties, and its output says so and that the value waits for a restart; an unknown key or a value a start would refuse fails with the
// broker's remark and changes nothing. Java: GetBrokerConfigCommand, UpdateBrokerConfigSubCommand.
func TestBrokerConfig(t *testing.T) {
	c := startCluster(t, 1)
	b := c.Brokers[0]
	addr := b.BrokerAddr()
	kv := configLines(t, ok(t, c, "getBrokerConfig", "-b", addr), addr)
	require.Equal(t, "broker-a", kv["brokerName"])
	require.Equal(t, "ASYNC_FLUSH", kv["flushDiskType"])
	require.Equal(t, "72", kv["fileReservedTime"])

	path := broker.BrokerConfigPath(b.MessageStoreConfig().StorePathRootDir)
	require.Equal(t, "update broker config success, "+addr+"\n"+
		"  written to "+path+"; the running broker keeps its current values until it is restarted with -c "+path+"\n",
		ok(t, c, "updateBrokerConfig", "-b", addr, "-k", "fileReservedTime", "-v", "48"))
	kv = configLines(t, ok(t, c, "getBrokerConfig", "-c", "DefaultCluster"), addr)
	require.Equal(t, "48", kv["fileReservedTime"])
	file, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(file), "fileReservedTime=48\n")

	r := mqadmin(t, c, "updateBrokerConfig", "-b", addr, "-k", "noSuchKey", "-v", "1")
	require.Equal(t, command.ExitFailed, r.code)
	require.Contains(t, r.errOut, "unknown config key(s): noSuchKey")
	r = mqadmin(t, c, "updateBrokerConfig", "-b", addr, "-k", "flushDiskType", "-v", "NEVER")
	require.Equal(t, command.ExitFailed, r.code)
	require.Contains(t, r.errOut, "flushDiskType")
	kv = configLines(t, ok(t, c, "getBrokerConfig", "-b", addr), addr)
	require.Equal(t, "ASYNC_FLUSH", kv["flushDiskType"])
	require.Equal(t, "48", kv["fileReservedTime"])

	r = mqadmin(t, c, "updateBrokerConfig", "-b", addr, "-k", "fileReservedTime")
	require.Equal(t, command.ExitUsage, r.code)
	require.Contains(t, r.errOut, "Missing required option: v")
}
