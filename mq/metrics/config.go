package metrics

import (
	"fmt"
	"net"
	"strconv"
)

// The values of metricsExporterType this broker and name server accept. RocketMQ 5 also has
// OTLP_GRPC and LOG; they are not built here and are refused naming the key.
const (
	// ExporterDisable serves no metrics (the default).
	ExporterDisable = "DISABLE"
	// ExporterProm serves Prometheus' text format on http://host:port/metrics.
	ExporterProm = "PROM"
)

// DefaultPromExporterPort is metricsPromExporterPort's default: RocketMQ 5's 5557 (the port
// rocketmq-exporter listens on too).
const DefaultPromExporterPort = 5557

// ExporterConfig holds the metrics keys of a broker's and a name server's properties file,
// embedded in BrokerConfig and NamesrvConfig so -c reads them and -p prints them.
// Mirrors the metrics fields of RocketMQ 5's org.apache.rocketmq.common.BrokerConfig
// (metricsExporterType, metricsPromExporterHost, metricsPromExporterPort).
//
// Deviation: RocketMQ 4.9 has no built-in exporter (rocketmq-exporter scrapes the admin API
// from outside); the keys are RocketMQ 5's, and the name server takes them too.
type ExporterConfig struct {
	// MetricsExporterType is DISABLE (default: nothing served) or PROM (a Prometheus endpoint).
	MetricsExporterType string `prop:"metricsExporterType"`
	// MetricsPromExporterHost is the IP the HTTP endpoint listens on; "" (default) means every
	// interface, as RocketMQ 5's default does.
	MetricsPromExporterHost string `prop:"metricsPromExporterHost"`
	// MetricsPromExporterPort is the endpoint's TCP port (default 5557; 0 takes an ephemeral
	// port, which tests use).
	MetricsPromExporterPort int `prop:"metricsPromExporterPort"`
}

// DefaultExporterConfig returns RocketMQ 5's defaults: DISABLE, every interface, port 5557.
func DefaultExporterConfig() ExporterConfig {
	return ExporterConfig{MetricsExporterType: ExporterDisable, MetricsPromExporterPort: DefaultPromExporterPort}
}

// Enabled reports whether a Prometheus endpoint is to be served (metricsExporterType=PROM).
func (c *ExporterConfig) Enabled() bool { return c.MetricsExporterType == ExporterProm }

// ListenAddr is "host:port" for net.Listen (":5557" with the default host).
func (c *ExporterConfig) ListenAddr() string {
	return net.JoinHostPort(c.MetricsPromExporterHost, strconv.Itoa(c.MetricsPromExporterPort))
}

// Validate refuses an exporter type other than DISABLE and PROM, a host that is not an IP
// address and a port outside [0, 65535]; component names the config in the message ("broker",
// "namesrv") and each message names its key.
func (c *ExporterConfig) Validate(component string) error {
	switch c.MetricsExporterType {
	case ExporterDisable, ExporterProm:
	case "OTLP_GRPC", "LOG":
		return fmt.Errorf("%s config: metricsExporterType=%s is not built (DISABLE or PROM)", component, c.MetricsExporterType)
	default:
		return fmt.Errorf("%s config: metricsExporterType must be DISABLE or PROM, got %q", component, c.MetricsExporterType)
	}
	if c.MetricsPromExporterHost != "" && net.ParseIP(c.MetricsPromExporterHost) == nil {
		return fmt.Errorf("%s config: metricsPromExporterHost %q is not an IP address", component, c.MetricsPromExporterHost)
	}
	if c.MetricsPromExporterPort < 0 || c.MetricsPromExporterPort > 65535 {
		return fmt.Errorf("%s config: metricsPromExporterPort must be in [0, 65535], got %d", component, c.MetricsPromExporterPort)
	}
	return nil
}
