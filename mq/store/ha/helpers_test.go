package ha

import (
	"bytes"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
	"github.com/stretchr/testify/require"
)

// node is one store with its HAService, as a broker wires them.
type node struct {
	dir   string
	cfg   store.MessageStoreConfig
	opts  store.Options
	store *store.DefaultMessageStore
	ha    *HAService
}

// testConfig is a small store: 4 KiB CommitLog files (so rolls show), 20-unit ConsumeQueue
// files, an ephemeral haListenPort, short HA intervals.
func testConfig(dir, role string) store.MessageStoreConfig {
	cfg := store.DefaultMessageStoreConfig()
	cfg.StorePathRootDir = dir
	cfg.StorePathCommitLog = filepath.Join(dir, "commitlog")
	cfg.MappedFileSizeCommitLog = 4096
	cfg.MappedFileSizeConsumeQueue = 20 * store.ConsumeQueueUnitSize
	cfg.BrokerRole = role
	cfg.HaListenPort = 0
	cfg.HaSendHeartbeatInterval = 200 * time.Millisecond
	cfg.HaHousekeepingInterval = 2 * time.Second
	cfg.SyncFlushTimeout = time.Second
	return cfg
}

// startNode creates, loads and starts a store and its HAService; both stop at the end of the
// test (HA first, as the broker does).
func startNode(t *testing.T, cfg store.MessageStoreConfig, opts store.Options, tr *trace.Tracer) *node {
	t.Helper()
	return startNodeLog(t, cfg, opts, tr, nil)
}

// startNodeLog is startNode with the HAService's operating log going to log (nil: tr's).
func startNodeLog(t *testing.T, cfg store.MessageStoreConfig, opts store.Options, tr *trace.Tracer, log *slog.Logger) *node {
	t.Helper()
	s, err := store.NewDefaultMessageStore(cfg, opts, nil, tr)
	require.NoError(t, err)
	require.NoError(t, s.Load())
	h := NewHAService(s, tr, log)
	h.client.pause = 50 * time.Millisecond // Java's 5 s reconnect pause would make the tests slow
	require.NoError(t, s.Start())
	require.NoError(t, h.Start())
	n := &node{dir: cfg.StorePathRootDir, cfg: cfg, opts: opts, store: s, ha: h}
	t.Cleanup(n.stop)
	return n
}

func (n *node) stop() {
	n.ha.Shutdown()
	n.store.Shutdown()
}

// haAddr is the node's HA address on loopback.
func (n *node) haAddr() string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(n.ha.AcceptSocketService().Port()))
}

// startPair starts a master of role masterRole and a slave following it.
func startPair(t *testing.T, masterRole string) (master, slave *node) {
	t.Helper()
	master = startNode(t, testConfig(t.TempDir(), masterRole), store.Options{}, nil)
	sc := testConfig(t.TempDir(), store.Slave)
	sc.HaMasterAddress = master.haAddr()
	slave = startNode(t, sc, store.Options{}, nil)
	waitReported(t, master, 1)
	return master, slave
}

// waitReported waits until the master has n connections, each slave's first report arrived
// and the write service chose where to start (so it starts where the slave is, not at the
// master's last file).
func waitReported(t *testing.T, master *node, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		conns := master.ha.Connections()
		if len(conns) != n {
			return false
		}
		for _, c := range conns {
			if c.SlaveRequestOffset() < 0 || c.write.NextTransferFromWhere() < 0 {
				return false
			}
		}
		return true
	}, 10*time.Second, 5*time.Millisecond)
}

// msg is a message of about 200 bytes for topic T, queue q.
func msg(q int32, i int) *primitive.MessageExtBrokerInner {
	m := &primitive.MessageExtBrokerInner{}
	m.Topic = "T"
	m.QueueID = q
	m.Body = bytes.Repeat([]byte(fmt.Sprintf("body-%04d;", i)), 10)
	m.BornTimestamp = 1700000000000
	m.BornHost = "127.0.0.1:50000"
	m.StoreHost = "127.0.0.1:10911"
	m.PropertiesString = "TAGS\x01TagA\x02KEYS\x01k" + strconv.Itoa(i)
	m.Properties = map[string]string{"TAGS": "TagA", "KEYS": "k" + strconv.Itoa(i)}
	return m
}

// putN puts n messages over queues 0..3 and requires status for each.
func putN(t *testing.T, s *store.DefaultMessageStore, from, n int, status store.PutMessageStatus) {
	t.Helper()
	for i := from; i < from+n; i++ {
		r := s.PutMessage(msg(int32(i%4), i))
		require.Equal(t, status, r.PutMessageStatus, "put %d", i)
	}
}

// commitLogFiles reads every CommitLog file of a store (name → bytes).
func commitLogFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "commitlog"))
	require.NoError(t, err)
	files := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, "commitlog", e.Name()))
		require.NoError(t, err)
		files[e.Name()] = b
	}
	return files
}

func names(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var _ = clock.System{}
