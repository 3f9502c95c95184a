package mqtest

import (
	"fmt"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store/ha"
)

// ConnectSlave plays, for a master and a slave whose stores run with ManualServices, what
// their HA loops would do to connect: the slave dials the master's HA port, the master accepts,
// the slave reports its max offset and the master reads the report (transfer starts there). It
// returns the master's side of the connection, for Replicate.
func ConnectSlave(master, slave *broker.BrokerController) (*ha.HAConnection, error) {
	client := slave.HAService().HAClient()
	if err := client.Dial(); err != nil {
		return nil, fmt.Errorf("the slave cannot dial its master: %w", err)
	}
	conn, err := master.HAService().AcceptSocketService().AcceptOne()
	if err != nil {
		return nil, err
	}
	if !client.ConnectMaster() {
		return nil, fmt.Errorf("the slave holds no connection to its master")
	}
	if !client.ReportOnce() {
		return nil, fmt.Errorf("the slave did not report its max offset")
	}
	if err := conn.ReadOnce(); err != nil {
		return nil, err
	}
	return conn, nil
}

// Replicate plays transfer passes on conn (ConnectSlave's) until the slave's CommitLog ends
// where the master's does: per frame the master's write pass, the slave's read (append and
// report) and the master's read of the report; then the slave's reput builds its ConsumeQueues.
// It returns how many frames it took.
func Replicate(conn *ha.HAConnection, master, slave *broker.BrokerController) (int, error) {
	client := slave.HAService().HAClient()
	frames := 0
	for slave.MessageStore().GetMaxPhyOffset() < master.MessageStore().GetMaxPhyOffset() {
		sent, err := conn.TransferOnce()
		if err != nil {
			return frames, err
		}
		if !sent {
			return frames, fmt.Errorf("the master sent nothing at %d", slave.MessageStore().GetMaxPhyOffset())
		}
		if err := client.ReadOnce(); err != nil {
			return frames, err
		}
		if err := conn.ReadOnce(); err != nil {
			return frames, err
		}
		frames++
	}
	slave.MessageStore().DoReput()
	return frames, nil
}
