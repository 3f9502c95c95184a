package broker

import (
	"fmt"
	"io"
	"log/slog"
	"maps"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/startup"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// CreateBrokerController applies BrokerStartup's fixed rules to the configs (a master has
// brokerId 0, a slave needs brokerId > 0; haListenPort = listenPort + 1), then creates and
// initializes the controller. A master configured with a brokerId other than 0 (a slave's
// config without, or with a mistyped, brokerRole) starts with brokerId 0, as Java's does, and
// logs a WARN naming the ignored brokerId. On error nothing is left running.
// Java: BrokerStartup#createBrokerController.
func CreateBrokerController(cfg BrokerConfig, serverCfg remoting.ServerConfig, storeCfg store.MessageStoreConfig,
	tr *trace.Tracer, opts ...Option) (*BrokerController, error) {
	ignoredID := int64(0)
	switch storeCfg.BrokerRole {
	case store.AsyncMaster, store.SyncMaster:
		ignoredID = cfg.BrokerID
		cfg.BrokerID = 0
	case store.Slave:
		if cfg.BrokerID <= 0 {
			return nil, fmt.Errorf("broker config: a slave's brokerId must be > 0, got %d", cfg.BrokerID)
		}
	}
	storeCfg.HaListenPort = cfg.ListenPort + 1
	if cfg.ListenPort == 0 {
		storeCfg.HaListenPort = 0 // an ephemeral listen port: an ephemeral HA port too
	}
	b, err := NewBrokerController(cfg, serverCfg, storeCfg, tr, opts...)
	if err != nil {
		return nil, err
	}
	if ignoredID != 0 {
		b.log.Warn(fmt.Sprintf("brokerId=%d ignored: a master (brokerRole=%s) has brokerId 0; set brokerRole=SLAVE for a slave",
			ignoredID, storeCfg.BrokerRole), "brokerName", cfg.BrokerName)
	}
	if err := b.Initialize(); err != nil {
		b.Shutdown()
		return nil, err
	}
	return b, nil
}

// Start starts b; on error b is shut down. Java: BrokerStartup#start.
func Start(b *BrokerController) (*BrokerController, error) {
	if err := b.Start(); err != nil {
		b.Shutdown()
		return nil, err
	}
	return b, nil
}

// StartupConfig is what the broker's command line resolves to.
type StartupConfig struct {
	Broker BrokerConfig
	// Server is the remoting servers' config; its ListenAddr's host is Keys.BindAddress (the
	// port is Broker.ListenPort).
	Server remoting.ServerConfig
	Store  store.MessageStoreConfig
	// Keys are the server keys of the -c file (bindAddress), as the name server's.
	Keys startup.ServerKeys
	// TLS are the tls.server.* keys of the -c file (broker_tls.go); Server.TLS is built from them.
	TLS remoting.TLSServerKeys
	// Dashboard are the web console's keys (dashboardAddr, dashboardWriteEnable; -dashboard).
	Dashboard DashboardKeys
	// UnknownKeys are the -c file's keys no config knows, sorted; RocketMQ ignores them, and
	// so do we after a warning (UnknownKeysText, with a "did you mean").
	UnknownKeys []string
	// PrintOnly is set by -p: the config was printed, nothing is to be started.
	PrintOnly bool
	// CPUProfile is -cpuprofile: the file mqbroker writes a CPU profile (pprof) of its run to;
	// "" when not given.
	CPUProfile string
}

// NewLogger returns the operating logger of the binaries: text lines on w at the configured
// logLevel (INFO when it does not parse; Validate reports that).
func (sc *StartupConfig) NewLogger(w io.Writer) *slog.Logger {
	level, err := conf.ParseLogLevel(sc.Broker.LogLevel)
	if err != nil {
		level = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// ParseCommandLine overlays a properties file (-c, RocketMQ keys of BrokerConfig,
// MessageStoreConfig and ServerKeys) and -n (name server list, "ip:port;ip:port") on the
// defaults; NAMESRV_ADDR is the default of namesrvAddr (so the order is: default <
// NAMESRV_ADDR < -c file < -n). Unknown keys are collected in UnknownKeys (ignored). Then it
// validates as a start would (StartupConfig.Validate: invalid values and settings whose
// feature is not built, e.g. brokerRole=SLAVE, are errors naming them), so -p refuses the
// same configs with the same message. With -p it prints the effective configuration to
// stdout (unknown keys as a warning on stderr) and sets PrintOnly. A bad flag is an error
// wrapping conf.ErrUsage, already printed with the usage on stderr. Errors carry no program-name
// prefix: the binary adds one.
// Java: BrokerStartup#createBrokerController (its command-line half).
func ParseCommandLine(args []string, stdout, stderr io.Writer) (*StartupConfig, error) {
	fs := startup.NewFlags("mqbroker", "broker config properties file (RocketMQ's broker.conf keys; see conf/)", stderr)
	namesrv := fs.String("n", "", "name server address list, e.g. '192.168.0.1:9876;192.168.0.2:9876'\n"+
		"(default: namesrvAddr of the -c file, else $NAMESRV_ADDR, else a name server in-process on 9876)")
	dashboard := fs.String("dashboard", "", "serve the web console on this address, e.g. ':8080'\n"+
		"(default: dashboardAddr of the -c file; unset: no console)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile (go tool pprof) of the run, from start to shutdown, to this file")
	fs.SetUsage("mqbroker [-c broker.conf] [-n 'ip:port;ip:port'] [-dashboard :8080] [-cpuprofile FILE] [-p]", usageDefaults)
	if err := fs.Parse(args); err != nil {
		return nil, err // -h, a bad flag (printed with the usage; wraps conf.ErrUsage), extra arguments
	}
	configFile, printConfig := fs.ConfigFile, fs.PrintConfig
	sc := &StartupConfig{Broker: DefaultBrokerConfig(), Store: store.DefaultMessageStoreConfig(),
		Server: remoting.DefaultServerConfig(), Keys: startup.DefaultServerKeys(),
		TLS: remoting.DefaultTLSServerKeys()}
	extra := map[string]string{}
	if *configFile != "" {
		props, all, err := startup.ApplyConfigFile(*configFile, &sc.Broker, &sc.Store, &sc.Keys, &sc.TLS, &sc.Dashboard)
		if err != nil {
			return nil, err
		}
		sc.UnknownKeys, extra = splitNotBuilt(props, all)
		if !*printConfig { // -p's stdout is the properties alone, readable back with -c
			fmt.Fprintf(stdout, "load config properties file OK, %s\n", *configFile)
		}
	}
	if *namesrv != "" {
		sc.Broker.NamesrvAddr = *namesrv
	}
	if *dashboard != "" {
		sc.Dashboard.DashboardAddr = *dashboard
	}
	sc.CPUProfile = *cpuProfile
	sc.Server.ListenAddr = sc.Keys.ListenAddr(0) // the port is Broker.ListenPort
	sc.Keys.ApplyTo(&sc.Server)
	props := effectiveProperties(&sc.Broker, &sc.Store)
	maps.Copy(props, extra)
	if err := checkNotBuilt(props); err != nil {
		return nil, err
	}
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	if err := sc.Dashboard.Validate(); err != nil {
		return nil, err
	}
	ts, err := sc.TLS.Build()
	if err != nil {
		return nil, err
	}
	sc.Server.TLS = ts
	if *printConfig {
		if len(sc.UnknownKeys) > 0 {
			fmt.Fprintf(stderr, "mqbroker: unknown config keys ignored: %s\n", sc.UnknownKeysText())
		}
		startup.PrintConfig(stdout, &sc.Broker, &sc.Keys, &sc.Store, &sc.TLS, &sc.Dashboard)
		sc.PrintOnly = true
	}
	return sc, nil
}

// usageDefaults ends mqbroker -h: where it listens and stores by default.
func usageDefaults(w io.Writer) {
	d := DefaultBrokerConfig()
	s := store.DefaultMessageStoreConfig()
	fmt.Fprintf(w, "  listenPort=%d (the fast (VIP) port is listenPort-2), bindAddress=%s (every interface)\n"+
		"  brokerIP1=%s (the address published to name servers and clients)\n"+
		"  storePathRootDir=%s\n"+
		"  namesrvAddr unset: a name server starts in-process on %s:9876\n",
		d.ListenPort, startup.DefaultBindAddress, d.BrokerIP1, s.StorePathRootDir, startup.DefaultBindAddress)
}

// BrokerStartup is the broker's command line: ParseCommandLine, then create, initialize and
// start the broker. With -p it returns a nil controller and nil error (nothing to run). tr nil
// logs to stderr at the configured logLevel (steps off). Java: BrokerStartup#main.
func BrokerStartup(args []string, stdout, stderr io.Writer, tr *trace.Tracer) (*BrokerController, error) {
	sc, err := ParseCommandLine(args, stdout, stderr)
	if err != nil || sc.PrintOnly {
		return nil, err
	}
	if tr == nil {
		tr = trace.New(sc.NewLogger(stderr), sc.Broker.BrokerName)
	}
	return StartWithConfig(sc, stdout, tr)
}

// StartWithConfig creates, initializes and starts a broker from a resolved StartupConfig,
// logs the unknown config keys through tr's logger and prints RocketMQ's boot banner to stdout.
func StartWithConfig(sc *StartupConfig, stdout io.Writer, tr *trace.Tracer) (*BrokerController, error) {
	if len(sc.UnknownKeys) > 0 {
		orDiscard(tr.Logger()).Warn("unknown config keys ignored", "keys", sc.UnknownKeysText())
	}
	b, err := CreateBrokerController(sc.Broker, sc.Server, sc.Store, tr)
	if err != nil {
		return nil, err
	}
	if _, err := Start(b); err != nil {
		return nil, err
	}
	ns := b.cfg.NamesrvAddr
	if ns == "" {
		ns = "(none)"
	}
	fmt.Fprintf(stdout, "The broker[%s, %s] boot success. serializeType=JSON and name server is %s\n",
		b.cfg.BrokerName, b.BrokerAddr(), ns)
	return b, nil
}

// splitNotBuilt parts the keys no config applied (all, sorted) into the unknown ones and
// those of notBuiltKeys with their values in props (for checkNotBuilt).
func splitNotBuilt(props map[string]string, all []string) (unknown []string, notBuilt map[string]string) {
	notBuilt = map[string]string{}
	for _, k := range all {
		if isNotBuiltKey(k) {
			notBuilt[k] = props[k]
			continue
		}
		unknown = append(unknown, k)
	}
	return unknown, notBuilt
}
