package broker

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

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
	b := NewBrokerController(cfg, serverCfg, storeCfg, tr)
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

// BrokerStartup is the broker's command line: it overlays a properties file (-c, RocketMQ keys
// of BrokerConfig and MessageStoreConfig; unknown keys are reported on stderr and ignored) and
// -n (name server list, "ip:port;ip:port") on the defaults, then creates, initializes and
// starts the broker. With -p it prints the effective configuration to stdout and returns a nil
// controller and nil error (nothing to run). tr may be nil.
// Java: BrokerStartup#main.
func BrokerStartup(args []string, stdout, stderr io.Writer, tr *trace.Tracer) (*BrokerController, error) {
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
	cfg := DefaultBrokerConfig()
	storeCfg := store.DefaultMessageStoreConfig()
	serverCfg := remoting.DefaultServerConfig()
	serverCfg.ListenAddr = "" // all interfaces; the port is cfg.ListenPort
	if *configFile != "" {
		text, err := os.ReadFile(*configFile)
		if err != nil {
			return nil, fmt.Errorf("mqbroker: read config file: %w", err)
		}
		if err := applyProperties(string(text), &cfg, &storeCfg); err != nil {
			if !isUnknownKeys(err) {
				return nil, fmt.Errorf("mqbroker: config file %s: %w", *configFile, err)
			}
			fmt.Fprintf(stderr, "mqbroker: config file %s: %v\n", *configFile, err)
		}
		fmt.Fprintf(stdout, "load config properties file OK, %s\n", *configFile)
	}
	if *namesrv != "" {
		cfg.NamesrvAddr = *namesrv
	}
	if *printConfig {
		fmt.Fprint(stdout, cfg.String())
		fmt.Fprint(stdout, storeCfg.String())
		return nil, nil
	}
	b, err := CreateBrokerController(cfg, serverCfg, storeCfg, tr)
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
	props, err := parseProperties(text)
	if err != nil {
		return err
	}
	rest, err := setProperties(cfg, props)
	if err != nil {
		return err
	}
	rest, err = setProperties(storeCfg, rest)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		// Java ignores keys no config object knows; so do we (listed for the operator).
		keys := slices.Sorted(maps.Keys(rest))
		return &unknownKeysError{keys: keys}
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
