package namesrv

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// ErrPrintedConfig is returned by CreateNamesrvController after `-p` printed the effective
// config: the caller exits 0 without starting anything.
var ErrPrintedConfig = errors.New("config printed")

// DefaultListenPort is the name server's port (RocketMQ: 9876).
const DefaultListenPort = 9876

// startupConfig is what a properties file may set: NamesrvConfig's keys plus the server's
// listenPort and bindAddress (Java keeps them in NettyServerConfig).
type startupConfig struct {
	NamesrvConfig
	ListenPort int `prop:"listenPort"`
	// BindAddress is the IP to listen on (default 0.0.0.0, every interface; 127.0.0.1 keeps the
	// name server off the network).
	//
	// Deviation: RocketMQ 4.9 always listens on every interface; bindAddress (default 0.0.0.0)
	// is RocketMQ 5's NettyServerConfig key, taken over as it is.
	BindAddress string `prop:"bindAddress"`
}

// DefaultBindAddress is bindAddress's default: every interface.
const DefaultBindAddress = "0.0.0.0"

// validate is the one check of a name server's startup config, for -p and for a start.
func (sc *startupConfig) validate() error {
	var errs []error
	if err := sc.NamesrvConfig.Validate(); err != nil {
		errs = append(errs, err)
	}
	if net.ParseIP(sc.BindAddress) == nil {
		errs = append(errs, fmt.Errorf("namesrv config: bindAddress %q is not an IP address", sc.BindAddress))
	}
	if sc.ListenPort < 0 || sc.ListenPort > 65535 {
		errs = append(errs, fmt.Errorf("namesrv config: listenPort must be in [0, 65535], got %d", sc.ListenPort))
	}
	return errors.Join(errs...)
}

// Main parses the command line, creates the controller and starts it, as mqnamesrv does.
// Flags: -c FILE (properties file, RocketMQ keys), -p (print the effective config and return
// ErrPrintedConfig). stdout receives -p output and the start banner, stderr a bad flag's error
// with the usage (and -h); tr may be nil; opts go to the controller (WithClock).
// Java: NamesrvStartup#main (main0).
func Main(args []string, stdout, stderr io.Writer, tr *trace.Tracer, opts ...Option) (*NamesrvController, error) {
	if tr.Enabled() {
		tr.Step("NamesrvStartup#main", slog.Int("args", len(args)))
	}
	c, err := CreateNamesrvController(args, stdout, stderr, tr, opts...)
	if err != nil {
		return nil, err
	}
	if err := Start(c); err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "The Name Server boot success. serializeType=JSON listen=%s\n", c.Addr())
	return c, nil
}

// CreateNamesrvController builds the config from the defaults, the -c file and the flags, and
// returns an unstarted controller. -p prints to stdout; a bad flag's error and the usage (-h)
// go to stderr, as mqbroker's do. Java: NamesrvStartup#createNamesrvController.
func CreateNamesrvController(args []string, stdout, stderr io.Writer, tr *trace.Tracer, opts ...Option) (*NamesrvController, error) {
	fs := flag.NewFlagSet("mqnamesrv", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("c", "", "name server config properties file")
	printCfg := fs.Bool("p", false, "print the effective config (every key, defaults included) and exit")
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintln(w, "Usage: mqnamesrv [-c namesrv.conf] [-p]")
		fs.PrintDefaults()
		d := DefaultNamesrvConfig()
		fmt.Fprintf(w, "Defaults (keys of a -c file; -p prints them all):\n"+
			"  listenPort=%d, bindAddress=%s (every interface)\n  kvConfigPath=%s\n",
			DefaultListenPort, DefaultBindAddress, d.KvConfigPath)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w", conf.ErrUsage, err) // printed by the flag package
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	sc := startupConfig{NamesrvConfig: DefaultNamesrvConfig(), ListenPort: DefaultListenPort, BindAddress: DefaultBindAddress}
	if *file != "" {
		f, err := os.Open(*file)
		if err != nil {
			return nil, fmt.Errorf("read config file: %w", err)
		}
		props, err := conf.ParseProperties(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("config file %s: %w", *file, err)
		}
		unknown, err := conf.Apply(props, &sc)
		if err != nil {
			return nil, fmt.Errorf("config file %s: %w", *file, err)
		}
		if len(unknown) > 0 { // a log line, as the broker's: stdout stays the -p properties
			if log := tr.Logger(); log != nil {
				log.Warn("unknown config keys ignored", "keys", conf.DescribeUnknown(unknown, conf.Keys(&sc)))
			}
		}
	}
	if err := sc.validate(); err != nil { // before -p: -p refuses what a start would
		return nil, err
	}
	if *printCfg {
		fmt.Fprint(stdout, conf.Format(&sc))
		return nil, ErrPrintedConfig
	}
	serverCfg := remoting.DefaultServerConfig()
	serverCfg.ListenAddr = net.JoinHostPort(sc.BindAddress, strconv.Itoa(sc.ListenPort))
	if tr.Enabled() {
		tr.Step("NamesrvStartup#createNamesrvController", slog.Int("listenPort", sc.ListenPort))
	}
	return NewNamesrvController(sc.NamesrvConfig, serverCfg, tr, opts...), nil
}

// Start initializes and starts the controller. Java: NamesrvStartup#start.
func Start(c *NamesrvController) error {
	if c.tr.Enabled() {
		c.tr.Step("NamesrvStartup#start")
	}
	if err := c.Initialize(); err != nil {
		c.Shutdown() // Initialize may have started worker pools
		return err
	}
	if err := c.Start(); err != nil {
		c.Shutdown() // a failed start (a port in use) leaves nothing running
		return err
	}
	return nil
}
