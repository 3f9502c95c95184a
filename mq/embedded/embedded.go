// Package embedded starts a name server and brokers in one process, on loopback, for tests,
// chapters and the default `go run ./mq/cmd/broker`.
//
// Java: none (RocketMQ's integration tests build the same thing from NamesrvController and
// BrokerController by hand).
package embedded

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/namesrv"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// Config describes a cluster: one name server and Brokers masters named broker-a, broker-b, ...
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
	// NamesrvCustomize, if set, adjusts the name server's config.
	NamesrvCustomize func(nc *namesrv.NamesrvConfig)
}

// Cluster is a running name server and its brokers.
type Cluster struct {
	Namesrv *namesrv.NamesrvController
	Brokers []*broker.BrokerController
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
	tr := trace.New(cfg.Logger, "namesrv")
	nc := namesrv.DefaultNamesrvConfig()
	nc.KvConfigPath = filepath.Join(cfg.Dir, "namesrv", "kvConfig.json")
	if cfg.NamesrvCustomize != nil {
		cfg.NamesrvCustomize(&nc)
	}
	sc := remoting.DefaultServerConfig()
	sc.ListenAddr = cfg.NamesrvListenAddr
	if sc.ListenAddr == "" {
		sc.ListenAddr = "127.0.0.1:0"
	}
	c := &Cluster{Namesrv: namesrv.NewNamesrvController(nc, sc, tr)}
	if err := namesrv.Start(c.Namesrv); err != nil {
		return nil, fmt.Errorf("embedded: start name server: %w", err)
	}
	for i := 0; i < cfg.Brokers; i++ {
		b, err := c.startBroker(cfg, i)
		if err != nil {
			c.Shutdown()
			return nil, err
		}
		c.Brokers = append(c.Brokers, b)
	}
	return c, nil
}

func (c *Cluster) startBroker(cfg Config, i int) (*broker.BrokerController, error) {
	name := fmt.Sprintf("broker-%c", 'a'+i)
	bc := broker.DefaultBrokerConfig()
	bc.BrokerName = name
	bc.BrokerIP1 = "127.0.0.1"
	bc.BrokerIP2 = "127.0.0.1"
	bc.NamesrvAddr = c.NamesrvAddr()
	sc := store.DefaultMessageStoreConfig()
	sc.StorePathRootDir = filepath.Join(cfg.Dir, name)
	sc.StorePathCommitLog = filepath.Join(sc.StorePathRootDir, "commitlog")
	nsc := remoting.DefaultServerConfig()
	nsc.ListenAddr = "127.0.0.1:0"
	bc.ListenPort = 0
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
	b, err := broker.NewBrokerController(bc, nsc, sc, trace.New(cfg.Logger, name), opts...)
	if err != nil {
		return nil, fmt.Errorf("embedded: create %s: %w", name, err)
	}
	if err := b.Initialize(); err != nil {
		return nil, fmt.Errorf("embedded: initialize %s: %w", name, err)
	}
	if err := b.Start(); err != nil {
		b.Shutdown()
		return nil, fmt.Errorf("embedded: start %s: %w", name, err)
	}
	return b, nil
}

// NamesrvAddr is the name server's "127.0.0.1:port".
func (c *Cluster) NamesrvAddr() string { return c.Namesrv.Addr() }

// Shutdown stops the brokers (newest first), then the name server.
func (c *Cluster) Shutdown() {
	for i := len(c.Brokers) - 1; i >= 0; i-- {
		c.Brokers[i].Shutdown()
	}
	c.Brokers = nil
	c.Namesrv.Shutdown()
}
