package clienttest

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// StartCluster starts a name server and brokers brokers in a temp dir of t, shut down at its
// cleanup: 1 MiB CommitLog files, 1000-unit ConsumeQueue files, and a send queue that may hold
// a request 10 s (a loaded test machine can queue a send past the 200 ms fast-failure limit,
// and a oneway send answered SYSTEM_BUSY is then silently dropped, RocketMQ's behaviour; the
// client tests are not about fast failure). customize, if set, adjusts each store's config
// after that. A failed start fails the test.
func StartCluster(t testing.TB, brokers int, customize func(sc *store.MessageStoreConfig)) *embedded.Cluster {
	t.Helper()
	c, err := embedded.Start(embedded.Config{Dir: t.TempDir(), Brokers: brokers,
		Customize: func(_ int, bc *broker.BrokerConfig, sc *store.MessageStoreConfig) {
			bc.WaitTimeMillsInSendQueue = 10 * time.Second
			sc.MappedFileSizeCommitLog = 1 << 20
			sc.MappedFileSizeConsumeQueue = 1000 * 20
			if customize != nil {
				customize(sc)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Shutdown)
	return c
}

// Name is t's name with every character a group or topic name refuses (anything but letters,
// digits, '-' and '_'; a subtest's '/' too) replaced by '_'.
func Name(t testing.TB) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, t.Name())
}

var instanceSeq atomic.Int64

// InstanceName is a client instance name no other call in the test binary returns: kind, t's
// name and a sequence number, so every producer or consumer a test starts gets an
// MQClientInstance of its own.
func InstanceName(t testing.TB, kind string) string {
	return fmt.Sprintf("%s-%s-%d", kind, t.Name(), instanceSeq.Add(1))
}
