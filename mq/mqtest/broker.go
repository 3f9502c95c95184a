package mqtest

import (
	"fmt"
	"os"

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
