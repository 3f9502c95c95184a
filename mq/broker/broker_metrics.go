package broker

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/metrics"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// newBrokerMetrics builds b's metrics: the PutMessageStatus names by value, the cluster and
// broker labels, and b itself as the state a scrape reads (brokerState).
func newBrokerMetrics(b *BrokerController) *metrics.BrokerMetrics {
	var names []string
	for s := store.PutOK; s <= store.LMQConsumeQueueNumExceeded; s++ {
		names = append(names, s.String())
	}
	return metrics.NewBrokerMetrics(b.cfg.BrokerClusterName, b.cfg.BrokerName, names, brokerState{b})
}

// Metrics is the broker's Prometheus collector (metrics.Serve serves it; mqbroker does when
// metricsExporterType=PROM). Its counters run whether or not anything scrapes them.
func (b *BrokerController) Metrics() *metrics.BrokerMetrics { return b.metrics }

// recordPut counts a send's store result on the metrics: the status and latency since start,
// and, when stored, the messages and CommitLog bytes under topic. It allocates nothing.
func (b *BrokerController) recordPut(topic string, r store.PutMessageResult, start time.Time) {
	_, stored := storedCode(r.PutMessageStatus)
	msgs, bytes := 0, 0
	if a := r.AppendMessageResult; stored && a != nil {
		msgs, bytes = int(a.MsgNum), int(a.WroteBytes)
	}
	b.metrics.RecordPut(topic, int(r.PutMessageStatus), stored && msgs > 0, msgs, bytes, b.clock.Now().Sub(start))
}

// brokerState is what a scrape reads from the broker (metrics.BrokerState). Parts not yet
// built (before Initialize) read as zero.
type brokerState struct{ b *BrokerController }

// MetricsSnapshot reads the store's offsets and lags, the servers' connections, the held
// pulls and queued sends, every ConsumeQueue of the broker's topics, every group's committed
// offsets (the diff rocketmq-exporter reports) and, on a master, each slave's lag.
func (s brokerState) MetricsSnapshot() metrics.BrokerSnapshot {
	b := s.b
	var snap metrics.BrokerSnapshot
	ms := b.messageStore
	if ms == nil {
		return snap
	}
	maxPhy := ms.GetMaxPhyOffset()
	snap.CommitLogMaxOffset = int64(maxPhy)
	snap.CommitLogMinOffset = int64(ms.GetMinPhyOffset())
	snap.DispatchBehindBytes = ms.DispatchBehindBytes()
	snap.FlushBehindBytes = ms.RemainHowManyDataToFlush()
	snap.PageCacheBusy = ms.IsOSPageCacheBusy()
	snap.Connections = map[string]int{}
	if b.remotingServer != nil {
		snap.Connections["main"] = b.remotingServer.ConnectionCount()
	}
	if b.fastRemotingServer != nil {
		snap.Connections["fast"] = b.fastRemotingServer.ConnectionCount()
	}
	snap.HeldPullRequests = b.pullRequestHoldService.HeldCount()
	snap.SendQueueLength = b.brokerFastFailure.QueuedSends()

	topics := b.topicConfigManager.TopicConfigTable()
	for _, t := range slices.Sorted(maps.Keys(topics)) {
		tc := topics[t]
		for q := range max(tc.ReadQueueNums, tc.WriteQueueNums) {
			if ms.ConsumeQueue(t, q) == nil {
				continue // nothing stored in it yet
			}
			snap.Queues = append(snap.Queues, metrics.QueueState{Topic: t, QueueID: q,
				MinOffset: int64(ms.GetMinOffsetInQueue(t, q)), MaxOffset: int64(ms.GetMaxOffsetInQueue(t, q))})
		}
	}
	for key, queues := range b.consumerOffsetManager.OffsetTable() {
		topic, group, ok := strings.Cut(key, TopicGroupSeparator)
		if !ok {
			continue
		}
		for q, off := range queues {
			snap.Groups = append(snap.Groups, metrics.GroupQueueState{Group: group, Topic: topic, QueueID: q,
				ConsumerOffset: int64(off), BrokerOffset: int64(ms.GetMaxOffsetInQueue(topic, q))})
		}
	}
	if b.haService != nil && b.storeCfg.BrokerRole != store.Slave {
		for _, c := range b.haService.Connections() {
			snap.Slaves = append(snap.Slaves, metrics.SlaveState{Addr: c.ClientAddr(),
				BehindBytes: int64(maxPhy - max(c.SlaveAckOffset(), 0))})
		}
	}
	return snap
}
