package metrics

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// BrokerState is what a scrape reads from a running broker; mq/broker implements it. It is
// called once per scrape, never on the request path.
type BrokerState interface {
	// MetricsSnapshot returns the broker's state now.
	MetricsSnapshot() BrokerSnapshot
}

// BrokerSnapshot is the broker's state at one scrape. Offsets in the CommitLog are bytes;
// queue offsets are ConsumeQueue units (messages).
type BrokerSnapshot struct {
	// CommitLogMaxOffset and CommitLogMinOffset bound the CommitLog (bytes).
	CommitLogMaxOffset, CommitLogMinOffset int64
	// DispatchBehindBytes is how far the reput (ConsumeQueue and index building) is behind the
	// CommitLog's end; FlushBehindBytes how much of the CommitLog is not yet flushed.
	DispatchBehindBytes, FlushBehindBytes int64
	// PageCacheBusy: a put has held the put lock longer than osPageCacheBusyTimeOutMills.
	PageCacheBusy bool
	// Connections are the open client connections, by server ("main", "fast").
	Connections map[string]int
	// HeldPullRequests are the pulls held by long polling; SendQueueLength the sends waiting
	// in the send pools' queues.
	HeldPullRequests, SendQueueLength int
	// Queues are the ConsumeQueues of the broker's topics.
	Queues []QueueState
	// Groups are the committed offsets of the consumer groups, one per (group, topic, queue).
	Groups []GroupQueueState
	// Slaves are a master's slaves (empty on a slave or a master without any).
	Slaves []SlaveState
}

// QueueState is one ConsumeQueue's bounds, in queue units.
type QueueState struct {
	Topic                string
	QueueID              int32
	MinOffset, MaxOffset int64
}

// GroupQueueState is a group's committed offset on one queue and the queue's max offset; the
// difference is rocketmq_group_diff (messages not yet consumed).
type GroupQueueState struct {
	Group, Topic                 string
	QueueID                      int32
	ConsumerOffset, BrokerOffset int64
}

// SlaveState is one slave connection of a master: the slave's address and how many
// CommitLog bytes it has not acknowledged yet.
type SlaveState struct {
	Addr        string
	BehindBytes int64
}

// brokerDescs are the descriptors of the broker's series.
type brokerDescs struct {
	putMessages, putBytes, getMessages, getBytes, putStatus, responses, fastFailure *prometheus.Desc
	commitLogMax, commitLogMin, dispatchBehind, flushBehind, pageCacheBusy          *prometheus.Desc
	connections, heldPulls, sendQueue, queueMax, queueDepth, groupDiff, slave       *prometheus.Desc
}

func newBrokerDescs(labels prometheus.Labels) brokerDescs {
	d := func(name, help string, vars ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, vars, labels)
	}
	return brokerDescs{
		putMessages:    d("rocketmq_put_messages_total", "Messages stored, by topic (a batch counts each message).", "topic"),
		putBytes:       d("rocketmq_put_bytes_total", "CommitLog bytes written by stored messages, by topic.", "topic"),
		getMessages:    d("rocketmq_get_messages_total", "Messages handed out by pulls, by topic.", "topic"),
		getBytes:       d("rocketmq_get_bytes_total", "Bytes of the records handed out by pulls, by topic.", "topic"),
		putStatus:      d("rocketmq_put_status_total", "Store results of sends, by PutMessageStatus.", "status"),
		responses:      d("rocketmq_responses_total", "Responses written, by response code.", "code"),
		fastFailure:    d("rocketmq_fast_failure_total", "Queued requests the fast-failure sweep answered SYSTEM_BUSY."),
		commitLogMax:   d("rocketmq_commitlog_max_offset_bytes", "The CommitLog's max offset, in bytes."),
		commitLogMin:   d("rocketmq_commitlog_min_offset_bytes", "The CommitLog's min offset (its oldest file's start; 0 while it has none), in bytes."),
		dispatchBehind: d("rocketmq_dispatch_behind_bytes", "CommitLog bytes the reput has not dispatched to ConsumeQueue and index yet."),
		flushBehind:    d("rocketmq_flush_behind_bytes", "CommitLog bytes not flushed to disk yet."),
		pageCacheBusy:  d("rocketmq_pagecache_busy", "1 while a put holds the put lock longer than osPageCacheBusyTimeOutMills, else 0."),
		connections:    d("rocketmq_connections", "Open client connections, by remoting server (main, fast).", "server"),
		heldPulls:      d("rocketmq_pull_requests_held", "Pull requests held by long polling."),
		sendQueue:      d("rocketmq_send_queue_length", "Send requests waiting in the send thread pools' queues."),
		queueMax:       d("rocketmq_consumequeue_max_offset", "A ConsumeQueue's max offset, in messages.", "topic", "queueId"),
		queueDepth:     d("rocketmq_consumequeue_depth", "Messages a ConsumeQueue holds (max offset - min offset).", "topic", "queueId"),
		groupDiff:      d("rocketmq_group_diff", "Messages a consumer group has not consumed on a queue (max offset - committed offset).", "group", "topic", "queueId"),
		slave:          d("rocketmq_slave_behind_bytes", "CommitLog bytes a slave has not acknowledged (master only).", "slave"),
	}
}

// each calls f with every descriptor.
func (d *brokerDescs) each(f func(*prometheus.Desc)) {
	for _, x := range []*prometheus.Desc{d.putMessages, d.putBytes, d.getMessages, d.getBytes, d.putStatus,
		d.responses, d.fastFailure, d.commitLogMax, d.commitLogMin, d.dispatchBehind, d.flushBehind,
		d.pageCacheBusy, d.connections, d.heldPulls, d.sendQueue, d.queueMax, d.queueDepth, d.groupDiff, d.slave} {
		f(x)
	}
}

// collectState sends the gauges of one BrokerSnapshot.
func (m *BrokerMetrics) collectState(ch chan<- prometheus.Metric) {
	s := m.state.MetricsSnapshot()
	g := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	g(m.d.commitLogMax, float64(s.CommitLogMaxOffset))
	// The store says -1 while it holds no CommitLog file (Java's getMinPhyOffset); the gauge says
	// 0, where the first record will be, so a graph of the range never dips below zero.
	g(m.d.commitLogMin, float64(max(s.CommitLogMinOffset, 0)))
	g(m.d.dispatchBehind, float64(s.DispatchBehindBytes))
	g(m.d.flushBehind, float64(s.FlushBehindBytes))
	busy := 0.0
	if s.PageCacheBusy {
		busy = 1
	}
	g(m.d.pageCacheBusy, busy)
	for server, n := range s.Connections {
		g(m.d.connections, float64(n), server)
	}
	g(m.d.heldPulls, float64(s.HeldPullRequests))
	g(m.d.sendQueue, float64(s.SendQueueLength))
	for _, q := range s.Queues {
		id := strconv.Itoa(int(q.QueueID))
		g(m.d.queueMax, float64(q.MaxOffset), q.Topic, id)
		g(m.d.queueDepth, float64(q.MaxOffset-q.MinOffset), q.Topic, id)
	}
	for _, q := range s.Groups {
		g(m.d.groupDiff, float64(max(q.BrokerOffset-q.ConsumerOffset, 0)), q.Group, q.Topic, strconv.Itoa(int(q.QueueID)))
	}
	for _, sl := range s.Slaves {
		g(m.d.slave, float64(sl.BehindBytes), sl.Addr)
	}
}
