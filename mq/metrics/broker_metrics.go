package metrics

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// maxPutStatuses bounds the PutMessageStatus values counted (the store has 11); a larger value
// is counted in the last slot.
const maxPutStatuses = 16

// responseCodeSlots is how many response codes are counted one by one (0..1023: RocketMQ's
// codes are below 400); any other code is counted under code="other".
const responseCodeSlots = 1024

// LatencyBuckets are the upper bounds, in seconds, of the put and pull latency histograms:
// 50 µs doubling to about 3.3 s (17 buckets), from a put into the page cache to a SYNC_FLUSH or
// SYNC_MASTER put waiting out a slow disk or slave.
var LatencyBuckets = prometheus.ExponentialBuckets(0.00005, 2, 17)

// topicCounters are one topic's totals; atomics, so the hot path takes no lock beyond the map
// lookup and allocates nothing.
type topicCounters struct {
	putMessages, putBytes, getMessages, getBytes atomic.Uint64
}

// BrokerMetrics is a broker's metrics: counters the request path adds to (puts, gets, put
// statuses, response codes, fast-failure answers, latency histograms) and, at scrape time, the
// gauges read from the broker's state (BrokerState). It is a prometheus.Collector: register it
// on a registry (Serve does).
//
// The hot path (RecordPut, RecordGet, ObservePullLatency, ObserveResponse) allocates nothing
// once a topic has been seen: per-topic totals are atomics in a map read under an RWMutex, and
// the histograms are client_golang's lock-free ones. Everything else is computed on Collect.
//
// Java: RocketMQ 5's BrokerMetricsManager (rocketmq_messages_in_total, ...) and rocketmq-exporter's
// figures (rocketmq_group_diff); the names here follow Prometheus conventions with the
// rocketmq_ prefix.
type BrokerMetrics struct {
	state         BrokerState
	putStatusName []string

	mu     sync.RWMutex
	topics map[string]*topicCounters // topic → totals; grows as topics are put to or pulled from

	putLatency  prometheus.Histogram
	pullLatency prometheus.Histogram
	putStatus   [maxPutStatuses]atomic.Uint64
	responses   [responseCodeSlots + 1]atomic.Uint64 // the last slot: codes outside [0, 1024)
	fastFailure atomic.Uint64

	d brokerDescs
}

// NewBrokerMetrics returns the metrics of the broker named broker in cluster; every series
// carries cluster and broker labels. putStatusNames are the PutMessageStatus names by value
// (PUT_OK first). state is read at each scrape; nil leaves the state gauges out.
func NewBrokerMetrics(cluster, broker string, putStatusNames []string, state BrokerState) *BrokerMetrics {
	labels := prometheus.Labels{"cluster": cluster, "broker": broker}
	hist := func(name, help string) prometheus.Histogram {
		return prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help,
			Buckets: LatencyBuckets, ConstLabels: labels})
	}
	return &BrokerMetrics{
		state:         state,
		putStatusName: putStatusNames,
		topics:        map[string]*topicCounters{},
		putLatency: hist("rocketmq_put_latency_seconds",
			"Time from a send request's decoding to its store result, in seconds (SYNC_FLUSH and SYNC_MASTER waits included)."),
		pullLatency: hist("rocketmq_pull_latency_seconds",
			"Time the broker spent on a pull request, in seconds: each pass counts (a held pull's first pass and its replay when messages arrive or the hold times out), the time held in between does not."),
		d: newBrokerDescs(labels),
	}
}

// topic returns topic's counters, creating them on first use.
func (m *BrokerMetrics) topic(topic string) *topicCounters {
	m.mu.RLock()
	c := m.topics[topic]
	m.mu.RUnlock()
	if c != nil {
		return c
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if c = m.topics[topic]; c == nil {
		c = &topicCounters{}
		m.topics[topic] = c
	}
	return c
}

// RecordPut counts one send's store result: its PutMessageStatus (by value) and latency, and,
// when the message was stored, messages (a batch's count) and bytes (the CommitLog bytes
// written) under topic. Java: BrokerStatsManager#incTopicPutNums, #incTopicPutSize.
func (m *BrokerMetrics) RecordPut(topic string, status int, stored bool, messages, bytes int, latency time.Duration) {
	m.putStatus[min(max(status, 0), maxPutStatuses-1)].Add(1)
	m.putLatency.Observe(latency.Seconds())
	if stored {
		c := m.topic(topic)
		c.putMessages.Add(uint64(messages))
		c.putBytes.Add(uint64(bytes))
	}
}

// RecordGet counts the messages and bytes (the records' sizes) a pull handed out of topic.
// Java: BrokerStatsManager#incGroupGetNums, #incGroupGetSize (summed per topic here).
func (m *BrokerMetrics) RecordGet(topic string, messages, bytes int) {
	if messages == 0 {
		return
	}
	c := m.topic(topic)
	c.getMessages.Add(uint64(messages))
	c.getBytes.Add(uint64(bytes))
}

// ObservePullLatency records how long one pass of a pull took: to answer it, or to hold it
// (a held pull's replay is a pass of its own).
func (m *BrokerMetrics) ObservePullLatency(d time.Duration) { m.pullLatency.Observe(d.Seconds()) }

// ObserveResponse counts one response written, by its code (remoting.ResponseObserver).
func (m *BrokerMetrics) ObserveResponse(code int32) {
	i := int(code)
	if i < 0 || i >= responseCodeSlots {
		i = responseCodeSlots
	}
	m.responses[i].Add(1)
}

// AddFastFailure counts requests that the fast-failure sweep answered SYSTEM_BUSY.
func (m *BrokerMetrics) AddFastFailure(n int) { m.fastFailure.Add(uint64(n)) }

// PutMessages is topic's total of messages stored (0 for a topic never put to); for tests.
func (m *BrokerMetrics) PutMessages(topic string) uint64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if c := m.topics[topic]; c != nil {
		return c.putMessages.Load()
	}
	return 0
}

// Responses is the number of responses written with code so far; for tests.
func (m *BrokerMetrics) Responses(code int32) uint64 {
	if code < 0 || code >= responseCodeSlots {
		return m.responses[responseCodeSlots].Load()
	}
	return m.responses[code].Load()
}

// FastFailures is the number of requests the fast-failure sweep answered so far; for tests.
func (m *BrokerMetrics) FastFailures() uint64 { return m.fastFailure.Load() }

// Describe implements prometheus.Collector.
func (m *BrokerMetrics) Describe(ch chan<- *prometheus.Desc) {
	m.d.each(func(d *prometheus.Desc) { ch <- d })
	m.putLatency.Describe(ch)
	m.pullLatency.Describe(ch)
}

// Collect implements prometheus.Collector: the counters as they stand and the state gauges read now.
func (m *BrokerMetrics) Collect(ch chan<- prometheus.Metric) {
	counter := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	m.mu.RLock()
	for topic, c := range m.topics {
		counter(m.d.putMessages, c.putMessages.Load(), topic)
		counter(m.d.putBytes, c.putBytes.Load(), topic)
		counter(m.d.getMessages, c.getMessages.Load(), topic)
		counter(m.d.getBytes, c.getBytes.Load(), topic)
	}
	m.mu.RUnlock()
	for i, name := range m.putStatusName {
		if i < maxPutStatuses {
			counter(m.d.putStatus, m.putStatus[i].Load(), name)
		}
	}
	for i := range m.responses {
		if v := m.responses[i].Load(); v > 0 {
			code := "other"
			if i < responseCodeSlots {
				code = strconv.Itoa(i)
			}
			counter(m.d.responses, v, code)
		}
	}
	counter(m.d.fastFailure, m.fastFailure.Load())
	ch <- m.putLatency
	ch <- m.pullLatency
	if m.state != nil {
		m.collectState(ch)
	}
}
