package mqtest

import (
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// Ack is what a SEND_MESSAGE answer says about a stored message.
type Ack struct {
	QueueID int32
	// QueueOffset is the message's position in its ConsumeQueue (units).
	QueueOffset store.QueueOffset
	// CommitLogOffset is where its record starts in the CommitLog (bytes), from its offsetMsgId.
	CommitLogOffset store.CommitLogOffset
}

// SendLoad describes the sends of Senders.
type SendLoad struct {
	// Addr is the broker's address; Topic the topic, created on the first send from TBW102
	// with 4 queues; sends go round robin over its queues 0..3.
	Addr, Topic string
	// Goroutines is how many goroutines send, each on its own after the one before answered.
	Goroutines int
	// Key names send i of goroutine g; the key is the message's KEYS and, after "body-", its body.
	Key func(g, i int) string
	// Properties, if set, gives a message's properties from its key (default: KEYS = key).
	Properties func(key string) map[string]string
	// Interval, if set, is the pause between one goroutine's sends (a steady rate for a long
	// run); 0 sends as fast as the broker answers.
	Interval time.Duration
}

// Senders sends SEND_MESSAGE requests as a producer would, from several goroutines, until
// stopped or until the broker stops answering, and keeps what was acknowledged by key. A crash
// test kills the broker while the sends are in flight and then checks every acknowledged
// message.
type Senders struct {
	load   SendLoad
	client *remoting.Client
	stop   chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	acked  map[string]Ack
}

// StartSenders starts load's goroutines.
func StartSenders(load SendLoad) *Senders {
	s := &Senders{load: load, client: remoting.NewClient(remoting.ClientConfig{}, nil), stop: make(chan struct{}), acked: map[string]Ack{}}
	for g := 0; g < load.Goroutines; g++ {
		s.wg.Go(func() { s.send(g) })
	}
	return s
}

func (s *Senders) send(g int) {
	for i := 0; ; i++ {
		if i > 0 && s.load.Interval > 0 {
			select {
			case <-s.stop:
				return
			case <-time.After(s.load.Interval):
			}
		}
		select {
		case <-s.stop:
			return
		default:
		}
		key := s.load.Key(g, i)
		props := map[string]string{primitive.PropertyKeys: key}
		if s.load.Properties != nil {
			props = s.load.Properties(key)
		}
		h := protocol.SendMessageRequestHeader{ProducerGroup: "pg", Topic: s.load.Topic, DefaultTopic: protocol.DefaultTopic,
			DefaultTopicQueueNums: 4, QueueID: int32(i % 4), BornTimestamp: clock.Millis(clock.System{}),
			Properties: primitive.MarshalProperties(props)}
		resp, err := Invoke(s.client, s.load.Addr, remoting.NewRequest(protocol.SendMessage, protocol.EncodeHeader(&h), []byte("body-"+key)))
		if err != nil || resp.Code != protocol.Success {
			return // the broker is gone
		}
		var rh protocol.SendMessageResponseHeader
		if protocol.DecodeHeader(resp.ExtFields, &rh) != nil {
			return
		}
		_, phy, err := primitive.DecodeOffsetMsgID(rh.MsgID)
		if err != nil {
			return
		}
		s.mu.Lock()
		s.acked[key] = Ack{QueueID: rh.QueueID, QueueOffset: store.QueueOffset(rh.QueueOffset), CommitLogOffset: store.CommitLogOffset(phy)}
		s.mu.Unlock()
	}
}

// Acked is how many sends were acknowledged so far.
func (s *Senders) Acked() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.acked)
}

// Stop stops the goroutines, waits for them and returns every acknowledged send by key.
func (s *Senders) Stop() map[string]Ack {
	close(s.stop)
	s.wg.Wait()
	s.client.Shutdown()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acked
}
