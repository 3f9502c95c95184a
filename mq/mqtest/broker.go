package mqtest

import (
	"fmt"
	"os"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// ServeBroker is the body of a crash test's child: it starts an untraced broker from bc and
// sc on an ephemeral loopback port, reports its address (ReportAddr) and serves until the
// process is killed. It returns only when the broker does not start: exit code 2, the
// error on standard error.
func ServeBroker(bc broker.BrokerConfig, sc store.MessageStoreConfig) int {
	b, err := embedded.StartBroker(bc, embedded.LoopbackServer(), sc, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child broker:", err)
		return 2
	}
	ReportAddr(b.BrokerAddr())
	select {}
}

// WaitCommitted waits (up to 10 s) until b's consumerOffset table holds want (queueId →
// offset, ConsumeQueue units) for group and topic: the oneway UPDATE_CONSUMER_OFFSET requests
// of a persist have landed. The error names what never arrived.
func WaitCommitted(b *broker.BrokerController, group, topic string, want map[int32]int64) error {
	om := b.ConsumerOffsetManager()
	err := WaitUntil(10*time.Second, func() bool {
		for q, v := range want {
			if int64(om.QueryOffset(group, topic, q)) != v {
				return false
			}
		}
		return true
	})
	if err != nil {
		return fmt.Errorf("offsets of %s never reached %v", group, want)
	}
	return nil
}
