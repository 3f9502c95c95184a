package main

import (
	"fmt"
	"io"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// tableRow is one line of the table: a row of the harness for one load against our broker,
// with NATS's medians beside it.
type tableRow struct {
	ID        rowID
	Measure   string
	Load      string // the client against our broker ("" for the raw row)
	NATS      string
	NATSCPU   string
	Broker    string
	BrokerCPU string
	Ratio     string // this broker ÷ NATS, msgs/s
	// The medians the strings show, for tests: msgs/s and CPU µs/msg of each side, latencies.
	NATSTPS, BrokerTPS         float64
	NATSCPUUs, BrokerCPUUs     float64
	NATSP50, BrokerP50, RawP50 time.Duration
	NATSP99, BrokerP99, RawP99 time.Duration
}

// hasLatency reports whether row r shows p50 and p99 beside msgs/s.
func hasLatency(r rowID) bool { return r == rowSync || r == rowSyncFlush1 || r == rowSyncFlushN }

// buildRows turns the samples into the table's lines, medians of every figure.
func buildRows(cfg config, res results) []tableRow {
	var rows []tableRow
	raw := res[rowRawFsync]["disk"]
	rawP50 := time.Duration(medianOf(raw, func(s sample) float64 { return float64(s.Latency.P50) }))
	for r := range rowCount {
		if !cfg.runs(r) {
			continue
		}
		if r == rowRawFsync {
			l := latencyOf(raw)
			rows = append(rows, tableRow{ID: r, Measure: cfg.rowLabel(r),
				Broker: fmt.Sprintf("p50 %s, p99 %s", fmtDur(l.P50), fmtDur(l.P99)), RawP50: l.P50, RawP99: l.P99})
			continue
		}
		nats := res[r][loadNATS]
		if r == rowLitePull {
			nats = res[rowConsume][loadNATS]
		}
		for _, load := range cfg.Loads {
			ours, ok := res[r][load]
			if !ok && r == rowLitePull {
				continue // only our client has a lite pull row
			}
			t := tableRow{ID: r, Measure: cfg.rowLabel(r), Load: load}
			t.NATSTPS = medianOf(nats, func(s sample) float64 { return s.tps() })
			t.BrokerTPS = medianOf(ours, func(s sample) float64 { return s.tps() })
			t.NATSCPUUs = medianOf(nats, func(s sample) float64 { return micros(s.CPUPerMsg) })
			t.BrokerCPUUs = medianOf(ours, func(s sample) float64 { return micros(s.CPUPerMsg) })
			t.NATS, t.Broker = fmtTPS(t.NATSTPS), fmtTPS(t.BrokerTPS)
			if hasLatency(r) {
				nl, ol := latencyOf(nats), latencyOf(ours)
				t.NATSP50, t.NATSP99, t.BrokerP50, t.BrokerP99 = nl.P50, nl.P99, ol.P50, ol.P99
				t.NATS += fmt.Sprintf(", p50 %s, p99 %s", fmtDur(nl.P50), fmtDur(nl.P99))
				t.Broker += fmt.Sprintf(", p50 %s, p99 %s", fmtDur(ol.P50), fmtDur(ol.P99))
			}
			if f := medianOf(nats, func(s sample) float64 { return float64(s.Failed) }); f > 0 {
				t.NATS += fmt.Sprintf(" (%.0f failed)", f)
			}
			if f := medianOf(ours, func(s sample) float64 { return float64(s.Failed) }); f > 0 {
				t.Broker += fmt.Sprintf(" (%.0f failed)", f)
			}
			t.NATSCPU, t.BrokerCPU = fmt.Sprintf("%.1f", t.NATSCPUUs), fmt.Sprintf("%.1f", t.BrokerCPUUs)
			if t.NATSTPS > 0 {
				t.Ratio = fmt.Sprintf("%.2f×", t.BrokerTPS/t.NATSTPS)
			}
			if r == rowSyncFlush1 && rawP50 > 0 {
				t.Ratio += fmt.Sprintf("; p50 %.1f× raw fdatasync", float64(t.BrokerP50)/float64(rawP50))
			}
			rows = append(rows, t)
		}
	}
	return rows
}

// writeTable prints rows as one table (tablewriter, markdown style so the README can hold it).
func writeTable(w io.Writer, rows []tableRow) error {
	t := tablewriter.NewTable(w, tablewriter.WithRenderer(renderer.NewMarkdown()), tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("measure", "load", "NATS JetStream", "NATS CPU µs/msg", "this broker", "broker CPU µs/msg", "ratio")
	for _, r := range rows {
		cpuN, cpuB, nats, load := r.NATSCPU, r.BrokerCPU, r.NATS, r.Load
		if load == "" {
			load, nats, cpuN, cpuB = "—", "—", "—", "—"
		}
		ratio := r.Ratio
		if ratio == "" {
			ratio = "—"
		}
		if err := t.Append(r.Measure, load, nats, cpuN, r.Broker, cpuB, ratio); err != nil {
			return err
		}
	}
	return t.Render()
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// fmtTPS prints msgs/s with three significant figures ("69.7 k msgs/s", "190 msgs/s").
func fmtTPS(v float64) string {
	switch {
	case v >= 100_000:
		return fmt.Sprintf("%.0f k msgs/s", v/1000)
	case v >= 10_000:
		return fmt.Sprintf("%.1f k msgs/s", v/1000)
	case v >= 1000:
		return fmt.Sprintf("%.2f k msgs/s", v/1000)
	}
	return fmt.Sprintf("%.0f msgs/s", v)
}

// fmtDur prints a latency in µs below 1 ms, else in ms ("613 µs", "4.90 ms", "14.4 ms").
func fmtDur(d time.Duration) string {
	msf := float64(d) / float64(time.Millisecond)
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f µs", micros(d))
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2f ms", msf)
	}
	return fmt.Sprintf("%.1f ms", msf)
}
