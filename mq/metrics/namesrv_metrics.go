package metrics

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// NamesrvMetrics is a name server's metrics: the brokers alive (read at scrape time from
// BrokersAlive) and the routes it served (GET_ROUTEINFO_BY_TOPIC answers, found or not).
// A prometheus.Collector.
type NamesrvMetrics struct {
	brokersAlive func() int
	found        atomic.Uint64
	notFound     atomic.Uint64

	alive, routes *prometheus.Desc
}

// NewNamesrvMetrics returns a name server's metrics; brokersAlive counts the live brokers at
// scrape time (nil: the gauge is left out).
func NewNamesrvMetrics(brokersAlive func() int) *NamesrvMetrics {
	return &NamesrvMetrics{
		brokersAlive: brokersAlive,
		alive:        prometheus.NewDesc("rocketmq_namesrv_brokers_alive", "Brokers registered with the name server and not expired.", nil, nil),
		routes: prometheus.NewDesc("rocketmq_namesrv_routes_served_total",
			"GET_ROUTEINFO_BY_TOPIC requests answered, by result (found: a route; topic_not_exist).", []string{"result"}, nil),
	}
}

// RecordRoute counts one route request: found is whether a route was answered.
func (m *NamesrvMetrics) RecordRoute(found bool) {
	if found {
		m.found.Add(1)
	} else {
		m.notFound.Add(1)
	}
}

// Describe implements prometheus.Collector.
func (m *NamesrvMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.alive
	ch <- m.routes
}

// Collect implements prometheus.Collector.
func (m *NamesrvMetrics) Collect(ch chan<- prometheus.Metric) {
	if m.brokersAlive != nil {
		ch <- prometheus.MustNewConstMetric(m.alive, prometheus.GaugeValue, float64(m.brokersAlive()))
	}
	ch <- prometheus.MustNewConstMetric(m.routes, prometheus.CounterValue, float64(m.found.Load()), "found")
	ch <- prometheus.MustNewConstMetric(m.routes, prometheus.CounterValue, float64(m.notFound.Load()), "topic_not_exist")
}
