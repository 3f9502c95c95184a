package consumer

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// PullAPIWrapper is a consumer's door to PULL_MESSAGE: it picks the broker of a queue (the id
// the last answer suggested), builds the header, and turns a raw answer into messages — decoded,
// decompressed, filtered by tag on the client side, stamped with the queue's MIN_OFFSET and
// MAX_OFFSET. Mirrors org.apache.rocketmq.client.impl.consumer.PullAPIWrapper.
//
// mu guards pullFromWhichNodeTable.
type PullAPIWrapper struct {
	instance *client.MQClientInstance
	group    string
	unitMode bool

	mu                     sync.Mutex
	pullFromWhichNodeTable map[primitive.MessageQueue]pullFromNode
}

// pullFromNode is a queue's entry of pullFromWhichNodeTable: the broker id the last answer
// suggested, and the id the pull before it used (what recalculatePullFromWhichNode logs a
// change against).
type pullFromNode struct {
	brokerID, used int64
}

// NewPullAPIWrapper returns the wrapper of group over instance.
func NewPullAPIWrapper(instance *client.MQClientInstance, group string, unitMode bool) *PullAPIWrapper {
	return &PullAPIWrapper{instance: instance, group: group, unitMode: unitMode,
		pullFromWhichNodeTable: map[primitive.MessageQueue]pullFromNode{}}
}

// PullKernelRequest is what a pull asks for. Offsets are ConsumeQueue units.
type PullKernelRequest struct {
	MQ             primitive.MessageQueue
	SubExpression  string
	ExpressionType string
	SubVersion     int64
	Offset         int64
	MaxNums        int32
	SysFlag        int32
	CommitOffset   int64
	// BrokerSuspendMaxTime is how long the broker may hold the pull (15 s for push consumers).
	BrokerSuspendMaxTime time.Duration
	// Timeout bounds the whole pull (30 s for push consumers).
	Timeout time.Duration
}

// PullKernelImpl sends one asynchronous pull; cb gets the raw result (call ProcessPullResult on
// it) or the error. The error return is a pull that could not be sent (cb not called).
// A push consumer pulls this way. Java: PullAPIWrapper#pullKernelImpl (ASYNC mode).
func (w *PullAPIWrapper) PullKernelImpl(r PullKernelRequest, cb client.PullCallback) error {
	addr, h, err := w.pullRequest(r)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.Timeout)
	err = w.instance.MQClientAPI().PullMessageAsync(ctx, addr, h, func(res *client.PullResult, err error) {
		cancel()
		cb(res, err)
	})
	if err != nil {
		cancel()
	}
	return err
}

// PullKernelImplSync is PullKernelImpl waiting for the answer (call ProcessPullResult on it): how
// a pull consumer, whose application asks for messages, pulls. ctx cancels it early (a lite
// pull consumer's shutdown); r.Timeout bounds it. Java: PullAPIWrapper#pullKernelImpl (SYNC mode).
func (w *PullAPIWrapper) PullKernelImplSync(ctx context.Context, r PullKernelRequest) (*client.PullResult, error) {
	addr, h, err := w.pullRequest(r)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	return w.instance.MQClientAPI().PullMessageSync(ctx, addr, h)
}

// pullRequest picks the broker to pull r.MQ from (the id the last answer suggested, the route
// refreshed once if the broker is unknown) and builds the header; a slave is never sent the
// commitOffset flag. Java: the first half of PullAPIWrapper#pullKernelImpl.
func (w *PullAPIWrapper) pullRequest(r PullKernelRequest) (string, *protocol.PullMessageRequestHeader, error) {
	brokerID := w.recalculatePullFromWhichNode(r.MQ)
	fr, ok := w.instance.FindBrokerAddressInSubscribe(r.MQ.BrokerName, brokerID, false)
	if !ok {
		w.instance.UpdateTopicRouteInfoFromNameServer(r.MQ.Topic)
		fr, ok = w.instance.FindBrokerAddressInSubscribe(r.MQ.BrokerName, brokerID, false)
	}
	if tr := w.instance.Tracer(); tr.Enabled() {
		tr.Step("PullAPIWrapper#pullKernelImpl", slog.String("topic", r.MQ.Topic), slog.String("brokerName", r.MQ.BrokerName),
			slog.Int("queueId", int(r.MQ.QueueID)), slog.Int64("offset", r.Offset), slog.String("subExpression", r.SubExpression),
			slog.Bool("slave", fr.Slave), slog.Bool("found", ok))
	}
	if !ok {
		return "", nil, fmt.Errorf("%w: %s", client.ErrBrokerNotExist, r.MQ.BrokerName)
	}
	sysFlag := r.SysFlag
	if fr.Slave {
		sysFlag = protocol.ClearCommitOffsetFlag(sysFlag)
	}
	return fr.BrokerAddr, &protocol.PullMessageRequestHeader{
		ConsumerGroup:        w.group,
		Topic:                r.MQ.Topic,
		QueueID:              r.MQ.QueueID,
		QueueOffset:          r.Offset,
		MaxMsgNums:           r.MaxNums,
		SysFlag:              sysFlag,
		CommitOffset:         r.CommitOffset,
		SuspendTimeoutMillis: r.BrokerSuspendMaxTime.Milliseconds(),
		Subscription:         r.SubExpression,
		SubVersion:           r.SubVersion,
		ExpressionType:       r.ExpressionType,
		BrokerName:           r.MQ.BrokerName,
	}, nil
}

// ProcessPullResult decodes a FOUND answer's messages, keeps those whose tag the subscription
// names (the broker filters by tag hash code, which can collide), decompresses bodies and sets
// MIN_OFFSET / MAX_OFFSET on each; it records the suggested broker id for the queue's next
// pull. A body that does not decode ends the list at the bad record (logged).
// Java: PullAPIWrapper#processPullResult.
func (w *PullAPIWrapper) ProcessPullResult(mq primitive.MessageQueue, res *client.PullResult, sub *protocol.SubscriptionData) *client.PullResult {
	w.updatePullFromWhichNode(mq, res.SuggestWhichBrokerID)
	if res.PullStatus == client.PullFound {
		msgs, err := primitive.DecodeMessages(res.MessageBinary)
		if err != nil {
			w.instance.Logger().Warn("decode pulled messages failed", "mq", mq.String(), "err", err)
		}
		found := msgs[:0]
		for _, m := range msgs {
			if sub != nil && len(sub.TagsSet) > 0 && !sub.ClassFilterMode && !slices.Contains(sub.TagsSet, m.Tags()) {
				continue
			}
			if m.SysFlag&primitive.CompressedFlag != 0 {
				if body, err := primitive.Uncompress(m.Body); err == nil {
					m.Body = body
				} else {
					w.instance.Logger().Warn("uncompress message body failed", "msgId", m.MsgID, "err", err)
				}
			}
			m.PutProperty(primitive.PropertyMinOffset, strconv.FormatInt(res.MinOffset, 10))
			m.PutProperty(primitive.PropertyMaxOffset, strconv.FormatInt(res.MaxOffset, 10))
			found = append(found, m)
		}
		res.MsgFoundList = found
	}
	res.MessageBinary = nil
	return res
}

// updatePullFromWhichNode remembers the broker id an answer for mq suggested (its
// suggestWhichBrokerId): the next pull of mq goes there. Java: PullAPIWrapper#updatePullFromWhichNode.
func (w *PullAPIWrapper) updatePullFromWhichNode(mq primitive.MessageQueue, brokerID int64) {
	w.mu.Lock()
	n, ok := w.pullFromWhichNodeTable[mq]
	if !ok {
		n.used = protocol.MasterID
	}
	n.brokerID = brokerID
	w.pullFromWhichNodeTable[mq] = n
	w.mu.Unlock()
}

// recalculatePullFromWhichNode returns the broker id to pull mq from: the one the last answer
// for mq suggested, the master (0) before any answer. The step is logged when the id differs
// from the one the queue's previous pull used (the broker moved the consumer: to
// whichBrokerWhenConsumeSlowly when the master lags, back to the master when caught up), not
// on every pull. Whether that id is in the route is FindBrokerAddressInSubscribe's business
// (a missing master falls back to a slave). Java: PullAPIWrapper#recalculatePullFromWhichNode.
func (w *PullAPIWrapper) recalculatePullFromWhichNode(mq primitive.MessageQueue) int64 {
	w.mu.Lock()
	n, ok := w.pullFromWhichNodeTable[mq]
	if !ok {
		w.mu.Unlock()
		return protocol.MasterID
	}
	changed, previous := n.brokerID != n.used, n.used
	n.used = n.brokerID
	w.pullFromWhichNodeTable[mq] = n
	w.mu.Unlock()
	if changed {
		if tr := w.instance.Tracer(); tr.Enabled() {
			tr.Step("PullAPIWrapper#recalculatePullFromWhichNode", slog.String("topic", mq.Topic),
				slog.String("brokerName", mq.BrokerName), slog.Int("queueId", int(mq.QueueID)),
				slog.Int64("brokerId", n.brokerID), slog.Int64("previousBrokerId", previous))
		}
	}
	return n.brokerID
}
