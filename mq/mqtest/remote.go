package mqtest

import (
	"errors"
	"fmt"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/remotingtest"
)

// Invoke sends req to addr and waits for the answer (remotingtest.InvokeTimeout at most): the
// kit's name for remotingtest.Call, so a chapter's requests go through the one kit it imports.
func Invoke(cl *remoting.Client, addr string, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	return remotingtest.Call(cl, addr, req)
}

// CreateTopic sends UPDATE_AND_CREATE_TOPIC to one broker, as `mqadmin updateTopic -b` does:
// queues read and write queues with perm. A non-SUCCESS answer is a *remoting.RemoteError.
func CreateTopic(cl *remoting.Client, brokerAddr, topic string, queues, perm int32) error {
	h := protocol.CreateTopicRequestHeader{Topic: topic, DefaultTopic: protocol.DefaultTopic,
		ReadQueueNums: queues, WriteQueueNums: queues, Perm: perm, TopicFilterType: protocol.SingleTag}
	resp, err := Invoke(cl, brokerAddr, remoting.NewRequest(protocol.UpdateAndCreateTopic, protocol.EncodeHeader(&h), nil))
	if err != nil {
		return fmt.Errorf("create topic %s: %w", topic, err)
	}
	return resp.Err()
}

// QueryRoute asks the name server for a topic's route (GET_ROUTEINFO_BY_TOPIC), as a
// producer's MQClientAPIImpl#getTopicRouteInfoFromNameServer does. A non-SUCCESS answer is a
// *remoting.RemoteError.
func QueryRoute(cl *remoting.Client, nsAddr, topic string) (*protocol.TopicRouteData, error) {
	req := remoting.NewRequest(protocol.GetRouteinfoByTopic, protocol.EncodeHeader(&protocol.GetRouteInfoRequestHeader{Topic: topic}), nil)
	resp, err := Invoke(cl, nsAddr, req)
	if err != nil {
		return nil, err
	}
	if err := resp.Err(); err != nil {
		return nil, err
	}
	return protocol.DecodeTopicRouteData(resp.Body)
}

// WaitRouted waits (10 s at most) until the name server routes topic to brokers brokers.
func WaitRouted(cl *remoting.Client, nsAddr, topic string, brokers int) error {
	err := WaitUntil(10*time.Second, func() bool {
		route, err := QueryRoute(cl, nsAddr, topic)
		return err == nil && len(route.QueueDatas) == brokers
	})
	if err != nil {
		return fmt.Errorf("the name server never routed %s to %d broker(s): %w", topic, brokers, err)
	}
	return nil
}

// ErrTimedOut is WaitUntil's answer when its condition never held.
var ErrTimedOut = errors.New("timed out")

// WaitUntil polls cond (every 2 ms) until it holds or timeout passes on the wall clock: it
// waits for real goroutines, whatever clock the components run on.
func WaitUntil(timeout time.Duration, cond func() bool) error {
	wall := clock.System{}
	deadline := wall.Now().Add(timeout)
	for !cond() {
		if wall.Now().After(deadline) {
			return ErrTimedOut
		}
		time.Sleep(2 * time.Millisecond)
	}
	return nil
}
