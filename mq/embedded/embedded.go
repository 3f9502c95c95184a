package embedded

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/namesrv"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// Config describes a cluster: one name server and Brokers masters named broker-a, broker-b, ...
// (and, with Slaves, one slave each)
type Config struct {
	// Dir holds each broker's store under Dir/<brokerName>.
	Dir string
	// Brokers is the number of brokers (default 1).
	Brokers int
	// NamesrvListenAddr is where the name server listens (default "127.0.0.1:0": an ephemeral port).
	NamesrvListenAddr string
	// BrokerListenAddrs, if set, gives each broker's listen address (default "127.0.0.1:0").
	BrokerListenAddrs []string
	// Logger receives step records and operating logs; nil is silent. Components are tagged
	// "namesrv" and the broker names.
	Logger *slog.Logger
	// Customize, if set, adjusts each broker's configs before it is created (small files in
	// tests, shorter intervals in chapters). i is the broker's index.
	Customize func(i int, bc *broker.BrokerConfig, sc *store.MessageStoreConfig)
	// StoreOptions, if set, gives each broker's store its Go-only options (clock, manual
	// services, event listeners), which MessageStoreConfig does not hold. i is the broker's index.
	StoreOptions func(i int) store.Options
	// TLS is the tls.server.mode and certificate of the name server's and every broker's
	// servers (remoting.TLSServerKeys.Build); zero: disabled.
	TLS remoting.TLSServer
	// NamesrvCustomize, if set, adjusts the name server's config.
	NamesrvCustomize func(nc *namesrv.NamesrvConfig)
	// NamesrvClock is the name server's clock (nil: the system clock); a test hands it a
	// clock.Manual to expire brokers on demand.
	NamesrvClock clock.Clock

	// Slaves starts a slave for every master (chapter 9): the same brokerName, brokerId 1,
	// brokerRole SLAVE, the master's store config (file sizes, flush type, timeouts) with its
	// store under Dir/<brokerName>-slave, tracing as
	// "<brokerName>-slave". It learns its master's HA address from the name server's
	// registration answer (unless SlaveCustomize sets haMasterAddress). Masters keep their
	// role (ASYNC_MASTER) unless Customize changes it (SYNC_MASTER). With Slaves, masters and
	// slaves trace their HA steps too (broker.WithHATracer).
	Slaves bool
	// SlaveCustomize, if set, adjusts each slave's configs; i is its master's index.
	SlaveCustomize func(i int, bc *broker.BrokerConfig, sc *store.MessageStoreConfig)
	// SlaveStoreOptions, if set, gives each slave's store its Go-only options; i is its
	// master's index.
	SlaveStoreOptions func(i int) store.Options
}

// Cluster is a running name server and its brokers.
type Cluster struct {
	Namesrv *namesrv.NamesrvController
	Brokers []*broker.BrokerController
	// Slaves[i] is the slave of Brokers[i] (Config.Slaves; nil after StopSlave).
	Slaves []*broker.BrokerController
	cfg    Config
}

// Start starts the name server, then each broker registered with it. On error everything
// started so far is shut down.
func Start(cfg Config) (*Cluster, error) {
	if cfg.Dir == "" {
		return nil, errors.New("embedded: Config.Dir is required")
	}
	if cfg.Brokers <= 0 {
		cfg.Brokers = 1
	}
	ns, err := startNamesrv(cfg.Dir, cfg.NamesrvListenAddr, trace.New(cfg.Logger, "namesrv"), cfg.NamesrvCustomize, cfg.TLS, namesrv.WithClock(cfg.NamesrvClock))
	if err != nil {
		return nil, err
	}
	c := &Cluster{Namesrv: ns, cfg: cfg}
	for i := 0; i < cfg.Brokers; i++ {
		b, err := c.startBroker(cfg, i)
		if err != nil {
			c.Shutdown()
			return nil, err
		}
		c.Brokers = append(c.Brokers, b)
	}
	if cfg.Slaves {
		c.Slaves = make([]*broker.BrokerController, cfg.Brokers)
		for i := range c.Brokers {
			if _, err := c.StartSlave(i); err != nil {
				c.Shutdown()
				return nil, err
			}
		}
	}
	return c, nil
}

// StartSlave starts (or, after StopSlave, restarts on the same store) the slave of master i
// as Config.Slaves describes and sets Slaves[i].
func (c *Cluster) StartSlave(i int) (*broker.BrokerController, error) {
	cfg := c.cfg
	name := fmt.Sprintf("broker-%c", 'a'+i)
	bc := BrokerConfig(name, c.NamesrvAddr())
	bc.BrokerID = 1
	sc := *c.Brokers[i].MessageStoreConfig() // the master's: same file sizes, flush, timeouts
	sc.BrokerRole = store.Slave
	sc.HaListenPort = 0
	sc.HaMasterAddress = ""
	sc.StorePathRootDir = filepath.Join(cfg.Dir, name+"-slave")
	sc.StorePathCommitLog = filepath.Join(sc.StorePathRootDir, "commitlog")
	if cfg.SlaveCustomize != nil {
		cfg.SlaveCustomize(i, &bc, &sc)
	}
	var opts []broker.Option
	if cfg.SlaveStoreOptions != nil {
		opts = append(opts, broker.WithStoreOptions(cfg.SlaveStoreOptions(i)))
	}
	tr := trace.New(cfg.Logger, name+"-slave")
	opts = append(opts, broker.WithHATracer(tr))
	b, err := StartBroker(bc, LoopbackServer(), sc, tr, opts...)
	if err != nil {
		return nil, err
	}
	for len(c.Slaves) <= i {
		c.Slaves = append(c.Slaves, nil)
	}
	c.Slaves[i] = b
	return b, nil
}

// StopSlave shuts down the slave of master i (its store stays for StartSlave).
func (c *Cluster) StopSlave(i int) {
	if i < len(c.Slaves) && c.Slaves[i] != nil {
		c.Slaves[i].Shutdown()
		c.Slaves[i] = nil
	}
}

// StopMaster shuts down master i (it unregisters from the name server; its store stays for
// StartMaster); Brokers[i] is nil until then. Its slave keeps running: the way to play "the
// master is down".
func (c *Cluster) StopMaster(i int) {
	if i < len(c.Brokers) && c.Brokers[i] != nil {
		c.Brokers[i].Shutdown()
		c.Brokers[i] = nil
	}
}

// StartMaster restarts master i, after StopMaster, on the same store as Start configured it
// (on a new ephemeral port unless BrokerListenAddrs names one) and sets Brokers[i]. Its slave
// learns the new address from its next registration answer (RegisterBrokerAll), clients from
// their next route refresh.
func (c *Cluster) StartMaster(i int) (*broker.BrokerController, error) {
	if i >= len(c.Brokers) || c.Brokers[i] != nil {
		return nil, fmt.Errorf("embedded: master %d is not stopped", i)
	}
	b, err := c.startBroker(c.cfg, i)
	if err != nil {
		return nil, err
	}
	c.Brokers[i] = b
	return b, nil
}

func (c *Cluster) startBroker(cfg Config, i int) (*broker.BrokerController, error) {
	name := fmt.Sprintf("broker-%c", 'a'+i)
	bc := BrokerConfig(name, c.NamesrvAddr())
	sc := store.DefaultMessageStoreConfig()
	sc.StorePathRootDir = filepath.Join(cfg.Dir, name)
	sc.StorePathCommitLog = filepath.Join(sc.StorePathRootDir, "commitlog")
	sc.HaListenPort = 0 // ephemeral, published through the name server
	nsc := LoopbackServer()
	nsc.TLS = cfg.TLS
	if i < len(cfg.BrokerListenAddrs) {
		nsc.ListenAddr = cfg.BrokerListenAddrs[i]
	}
	if cfg.Customize != nil {
		cfg.Customize(i, &bc, &sc)
	}
	var opts []broker.Option
	if cfg.StoreOptions != nil {
		opts = append(opts, broker.WithStoreOptions(cfg.StoreOptions(i)))
	}
	tr := trace.New(cfg.Logger, name)
	if cfg.Slaves {
		opts = append(opts, broker.WithHATracer(tr))
	}
	return StartBroker(bc, nsc, sc, tr, opts...)
}

// StartNamesrv starts a name server whose KV config lives under dir/namesrv, listening on
// listenAddr ("" means "127.0.0.1:0", an ephemeral loopback port); customize, if set, adjusts
// its config first.
func StartNamesrv(dir, listenAddr string, tr *trace.Tracer, customize func(*namesrv.NamesrvConfig), opts ...namesrv.Option) (*namesrv.NamesrvController, error) {
	return startNamesrv(dir, listenAddr, tr, customize, remoting.TLSServer{}, opts...)
}

// startNamesrv is StartNamesrv whose server speaks ts's TLS mode.
func startNamesrv(dir, listenAddr string, tr *trace.Tracer, customize func(*namesrv.NamesrvConfig), ts remoting.TLSServer, opts ...namesrv.Option) (*namesrv.NamesrvController, error) {
	if listenAddr == "" {
		listenAddr = "127.0.0.1:0"
	}
	ns := newNamesrv(dir, listenAddr, tr, customize, ts, opts...)
	if err := namesrv.Start(ns); err != nil {
		return nil, fmt.Errorf("embedded: start name server: %w", err)
	}
	return ns, nil
}

// newNamesrv creates (does not start) a name server listening on listenAddr whose KV config
// lives under dir/namesrv, speaking ts's TLS mode; customize, if set, adjusts its config first.
func newNamesrv(dir, listenAddr string, tr *trace.Tracer, customize func(*namesrv.NamesrvConfig), ts remoting.TLSServer, opts ...namesrv.Option) *namesrv.NamesrvController {
	nc := namesrv.DefaultNamesrvConfig()
	nc.KvConfigPath = filepath.Join(dir, "namesrv", "kvConfig.json")
	if customize != nil {
		customize(&nc)
	}
	sc := remoting.DefaultServerConfig()
	sc.ListenAddr = listenAddr
	sc.TLS = ts
	return namesrv.NewNamesrvController(nc, sc, tr, opts...)
}

// StartBroker creates, initializes and starts one broker from its configs (the sequence
// BrokerStartup#main runs); on error what was started is shut down.
func StartBroker(bc broker.BrokerConfig, server remoting.ServerConfig, sc store.MessageStoreConfig, tr *trace.Tracer, opts ...broker.Option) (*broker.BrokerController, error) {
	name := bc.BrokerName
	b, err := broker.NewBrokerController(bc, server, sc, tr, opts...)
	if err != nil {
		return nil, fmt.Errorf("embedded: create %s: %w", name, err)
	}
	if err := b.Initialize(); err != nil {
		b.Shutdown()
		return nil, fmt.Errorf("embedded: initialize %s: %w", name, err)
	}
	if err := b.Start(); err != nil {
		b.Shutdown()
		return nil, fmt.Errorf("embedded: start %s: %w", name, err)
	}
	return b, nil
}

// BrokerConfig is RocketMQ's broker defaults for a master named name on loopback (brokerIP1
// and brokerIP2 127.0.0.1), on the ephemeral port its server binds, registering with the name
// servers nsAddr ("" for none).
func BrokerConfig(name, nsAddr string) broker.BrokerConfig {
	bc := broker.DefaultBrokerConfig()
	bc.BrokerName = name
	bc.BrokerIP1, bc.BrokerIP2 = "127.0.0.1", "127.0.0.1"
	bc.NamesrvAddr = nsAddr
	bc.ListenPort = 0
	return bc
}

// LoopbackServer is a remoting server config listening on an ephemeral loopback port.
func LoopbackServer() remoting.ServerConfig {
	sc := remoting.DefaultServerConfig()
	sc.ListenAddr = "127.0.0.1:0"
	return sc
}

// NamesrvAddr is the name server's "127.0.0.1:port".
func (c *Cluster) NamesrvAddr() string { return c.Namesrv.Addr() }

// Shutdown stops the slaves, the brokers (newest first), then the name server.
func (c *Cluster) Shutdown() {
	for i := len(c.Slaves) - 1; i >= 0; i-- {
		c.StopSlave(i)
	}
	for i := len(c.Brokers) - 1; i >= 0; i-- {
		c.StopMaster(i)
	}
	c.Brokers = nil
	c.Namesrv.Shutdown()
}
