package broker

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// CreateBrokerController applies BrokerStartup's fixed rules to the configs (a master has
// brokerId 0, a slave needs brokerId > 0; haListenPort = listenPort + 1), then creates and
// initializes the controller. On error nothing is left running.
// Java: BrokerStartup#createBrokerController.
func CreateBrokerController(cfg BrokerConfig, serverCfg remoting.ServerConfig, storeCfg store.MessageStoreConfig,
	tr *trace.Tracer) (*BrokerController, error) {
	switch storeCfg.BrokerRole {
	case store.ASYNC_MASTER, store.SYNC_MASTER:
		cfg.BrokerID = 0
	case store.SLAVE:
		if cfg.BrokerID <= 0 {
			return nil, fmt.Errorf("broker config: a slave's brokerId must be > 0, got %d", cfg.BrokerID)
		}
	}
	storeCfg.HaListenPort = cfg.ListenPort + 1
	b, err := NewBrokerController(cfg, serverCfg, storeCfg, tr)
	if err != nil {
		return nil, err
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
	Server remoting.ServerConfig
	Store  store.MessageStoreConfig
	// PrintOnly is set by -p: the config was printed, nothing is to be started.
	PrintOnly bool
}

// ParseCommandLine overlays a properties file (-c, RocketMQ keys of BrokerConfig and
// MessageStoreConfig; unknown keys are reported on stderr and ignored) and -n (name server
// list, "ip:port;ip:port") on the defaults; NAMESRV_ADDR is the default of namesrvAddr. With -p
// it prints the effective configuration to stdout and sets PrintOnly.
// Java: BrokerStartup#createBrokerController (its command-line half).
func ParseCommandLine(args []string, stdout, stderr io.Writer) (*StartupConfig, error) {
	fs := flag.NewFlagSet("mqbroker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	namesrv := fs.String("n", "", "name server address list, e.g. '192.168.0.1:9876;192.168.0.2:9876'")
	configFile := fs.String("c", "", "broker config properties file")
	printConfig := fs.Bool("p", false, "print the effective config and exit")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("mqbroker: unexpected arguments %q", fs.Args())
	}
	sc := &StartupConfig{Broker: DefaultBrokerConfig(), Store: store.DefaultMessageStoreConfig(), Server: remoting.DefaultServerConfig()}
	sc.Server.ListenAddr = "" // all interfaces; the port is Broker.ListenPort
	if *configFile != "" {
		text, err := os.ReadFile(*configFile)
		if err != nil {
			return nil, fmt.Errorf("mqbroker: read config file: %w", err)
		}
		if err := applyProperties(string(text), &sc.Broker, &sc.Store); err != nil {
			if !isUnknownKeys(err) {
				return nil, fmt.Errorf("mqbroker: config file %s: %w", *configFile, err)
			}
			fmt.Fprintf(stderr, "mqbroker: config file %s: %v\n", *configFile, err)
		}
		fmt.Fprintf(stdout, "load config properties file OK, %s\n", *configFile)
	}
	if *namesrv != "" {
		sc.Broker.NamesrvAddr = *namesrv
	}
	if *printConfig {
		fmt.Fprint(stdout, sc.Broker.String())
		fmt.Fprint(stdout, sc.Store.String())
		sc.PrintOnly = true
	}
	return sc, nil
}

// BrokerStartup is the broker's command line: ParseCommandLine, then create, initialize and
// start the broker. With -p it returns a nil controller and nil error (nothing to run). tr may
// be nil. Java: BrokerStartup#main.
func BrokerStartup(args []string, stdout, stderr io.Writer, tr *trace.Tracer) (*BrokerController, error) {
	sc, err := ParseCommandLine(args, stdout, stderr)
	if err != nil || sc.PrintOnly {
		return nil, err
	}
	return StartWithConfig(sc, stdout, tr)
}

// StartWithConfig creates, initializes and starts a broker from a resolved StartupConfig and
// prints RocketMQ's boot banner to stdout.
func StartWithConfig(sc *StartupConfig, stdout io.Writer, tr *trace.Tracer) (*BrokerController, error) {
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

// applyProperties overlays properties text onto the broker and store configs. A bad value is
// an error; keys naming neither config are applied nowhere and reported as an
// *unknownKeysError after everything else was applied.
func applyProperties(text string, cfg *BrokerConfig, storeCfg *store.MessageStoreConfig) error {
	props, err := conf.ParseProperties(strings.NewReader(text))
	if err != nil {
		return err
	}
	unknown, err := conf.Apply(props, cfg, storeCfg)
	if err != nil {
		return err
	}
	if len(unknown) > 0 {
		// Java ignores keys no config object knows; so do we (listed for the operator).
		return &unknownKeysError{keys: unknown}
	}
	return nil
}

// unknownKeysError lists property keys no config knows (reported, not fatal).
type unknownKeysError struct{ keys []string }

func (e *unknownKeysError) Error() string {
	return "unknown property keys ignored: " + strings.Join(e.keys, ", ")
}

// isUnknownKeys reports whether err only lists unknown keys.
func isUnknownKeys(err error) bool {
	var u *unknownKeysError
	return errors.As(err, &u)
}
