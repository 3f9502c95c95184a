// Package metrics is the Prometheus face of the broker and the name server: the collectors of
// their figures and the HTTP endpoint that serves them (github.com/prometheus/client_golang).
//
// Java: RocketMQ 5's metrics (org.apache.rocketmq.broker.metrics.BrokerMetricsManager, its
// metricsExporterType / metricsPromExporterHost / metricsPromExporterPort keys) and the
// figures rocketmq-exporter computes from RocketMQ 4's admin API (rocketmq_group_diff).
// RocketMQ 4.9 itself exports nothing.
//
// The package knows nothing of the broker's or the store's types: it sits low, and the
// broker feeds it. Counters on the request path (RecordPut, RecordGet, ObserveResponse, the
// latency histograms) are atomics that allocate nothing; every gauge that reads state (offsets,
// lags, connections, held pulls, queue lengths, slave lag) is computed when Prometheus scrapes,
// through the BrokerState interface the broker implements, so an unscraped broker pays only
// for the counters.
//
// # Files
//
//	config.go           ExporterConfig: metricsExporterType (DISABLE, PROM), metricsPromExporterHost,
//	                    metricsPromExporterPort (5557), embedded in BrokerConfig and NamesrvConfig
//	broker_metrics.go   BrokerMetrics: the per-topic put/get totals, put statuses, response codes,
//	                    fast-failure answers, put and pull latency histograms; Collect
//	broker_state.go     BrokerState and BrokerSnapshot: what a scrape reads from a broker; the
//	                    descriptors of every broker series
//	namesrv_metrics.go  NamesrvMetrics: brokers alive, routes served
//	exporter.go         Exporter, Listen, Serve and ServeOn: the /metrics HTTP endpoint over a registry of its own
//
// # Series
//
// Every broker series has the labels cluster and broker (brokerName).
//
//	rocketmq_put_messages_total{topic}          counter  messages stored
//	rocketmq_put_bytes_total{topic}             counter  CommitLog bytes written
//	rocketmq_get_messages_total{topic}          counter  messages handed out by pulls
//	rocketmq_get_bytes_total{topic}             counter  bytes handed out by pulls
//	rocketmq_put_latency_seconds                histogram
//	rocketmq_pull_latency_seconds               histogram
//	rocketmq_put_status_total{status}           counter  by PutMessageStatus name
//	rocketmq_responses_total{code}              counter  by response code
//	rocketmq_fast_failure_total                 counter  requests answered SYSTEM_BUSY by the sweep
//	rocketmq_commitlog_max_offset_bytes         gauge
//	rocketmq_commitlog_min_offset_bytes         gauge
//	rocketmq_dispatch_behind_bytes              gauge    bytes behind the reput
//	rocketmq_flush_behind_bytes                 gauge    bytes not yet flushed
//	rocketmq_pagecache_busy                     gauge    0 or 1
//	rocketmq_connections{server}                gauge    main, fast
//	rocketmq_pull_requests_held                 gauge
//	rocketmq_send_queue_length                  gauge
//	rocketmq_consumequeue_max_offset{topic,queueId}  gauge  messages
//	rocketmq_consumequeue_depth{topic,queueId}  gauge    max - min offset
//	rocketmq_group_diff{group,topic,queueId}    gauge    max offset - committed offset
//	rocketmq_slave_behind_bytes{slave}          gauge    master only
//	rocketmq_namesrv_brokers_alive              gauge    (name server)
//	rocketmq_namesrv_routes_served_total{result} counter (name server)
//
// Goroutines: the Exporter's HTTP server. Locks: BrokerMetrics.mu guards the topic map (the
// totals in it are atomics).
package metrics
