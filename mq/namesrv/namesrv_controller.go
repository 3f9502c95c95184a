package namesrv

import (
	"log/slog"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
	"github.com/annotated-rocketmq/rocketmq-go/mq/metrics"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// NamesrvController owns the name server's parts: the remoting server, the request processor,
// the route tables and the scan service.
// Mirrors org.apache.rocketmq.namesrv.NamesrvController.
type NamesrvController struct {
	NamesrvConfig    NamesrvConfig
	ServerConfig     remoting.ServerConfig
	RouteInfoManager *RouteInfoManager // set by Initialize
	KVConfigManager  *KVConfigManager  // set by Initialize

	server  *remoting.Server
	scan    *service.ServiceThread
	tr      *trace.Tracer
	clock   clock.Clock // the route tables' clock (WithClock)
	started bool
	// metrics counts the routes served; Metrics serves it with the brokers alive.
	metrics *metrics.NamesrvMetrics
}

// NewNamesrvController builds a controller; nothing runs until Initialize and Start. opts may
// set its clock (WithClock).
func NewNamesrvController(cfg NamesrvConfig, serverCfg remoting.ServerConfig, tr *trace.Tracer, opts ...Option) *NamesrvController {
	c := &NamesrvController{NamesrvConfig: cfg, ServerConfig: serverCfg, tr: tr, clock: clock.System{}}
	c.metrics = metrics.NewNamesrvMetrics(c.brokersAlive)
	for _, o := range opts {
		o(c)
	}
	return c
}

// Initialize loads the KV config from KvConfigPath, creates the route tables, the remoting
// server with the housekeeping listener and the default processor, and the scanNotActiveBroker
// service (first pass after 5 s, then every ScanNotActiveBrokerInterval). A KV config file that
// exists but does not decode is an error. Java: NamesrvController#initialize.
func (c *NamesrvController) Initialize() error {
	if err := c.NamesrvConfig.Validate(); err != nil {
		return err
	}
	c.KVConfigManager = NewKVConfigManager(c.NamesrvConfig.KvConfigPath, c.tr.Logger())
	if err := c.KVConfigManager.Load(); err != nil {
		return err
	}
	c.RouteInfoManager = NewRouteInfoManager(c.NamesrvConfig.BrokerChannelExpiredTime, c.clock, c.tr)
	c.server = remoting.NewServer(c.ServerConfig, &BrokerHousekeepingService{c: c}, c.tr)
	workers := c.ServerConfig.ServerWorkerThreads
	if workers <= 0 {
		workers = 8
	}
	c.server.RegisterDefaultProcessor(&DefaultRequestProcessor{c: c}, workers)
	c.scan = service.New("NSScheduledThread")
	if c.tr.Enabled() {
		c.tr.Step("NamesrvController#initialize",
			slog.Duration("scanNotActiveBrokerInterval", c.NamesrvConfig.ScanNotActiveBrokerInterval),
			slog.Duration("brokerChannelExpiredTime", c.NamesrvConfig.BrokerChannelExpiredTime))
	}
	return nil
}

// Start opens the listening port and starts the scan service. Java: NamesrvController#start.
func (c *NamesrvController) Start() error {
	if err := c.server.Start(); err != nil {
		return err
	}
	first := 5 * time.Second
	if iv := c.NamesrvConfig.ScanNotActiveBrokerInterval; iv < first {
		first = iv
	}
	c.scan.RunEvery(first, c.NamesrvConfig.ScanNotActiveBrokerInterval, func() { c.RouteInfoManager.ScanNotActiveBroker() })
	c.started = true
	return nil
}

// Metrics is the name server's Prometheus collector: brokers alive, routes served
// (metrics.Serve serves it; mqnamesrv does when metricsExporterType=PROM).
func (c *NamesrvController) Metrics() *metrics.NamesrvMetrics { return c.metrics }

// brokersAlive is the number of brokers in the live table (0 before Initialize).
func (c *NamesrvController) brokersAlive() int {
	if c.RouteInfoManager == nil {
		return 0
	}
	return c.RouteInfoManager.BrokerLiveCount()
}

// Addr is "ip:port" of the bound listener (the actual port when configured with port 0).
func (c *NamesrvController) Addr() string { return c.server.Addr().String() }

// Port is the bound port.
func (c *NamesrvController) Port() int { return c.server.Port() }

// Shutdown stops the scan service, then the server. Java: NamesrvController#shutdown.
func (c *NamesrvController) Shutdown() {
	if c.scan != nil {
		c.scan.Shutdown()
	}
	if c.server != nil {
		c.server.Shutdown()
	}
}
