package namesrv

import (
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/startup"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// ErrPrintedConfig is returned by CreateNamesrvController after `-p` printed the effective
// config: the caller exits 0 without starting anything (startup.ExitCode knows it).
var ErrPrintedConfig = startup.ErrPrintedConfig

// DefaultListenPort is the name server's port (RocketMQ: 9876).
const DefaultListenPort = 9876

// startupConfig is what a properties file may set: NamesrvConfig's keys plus the server's
// listenPort and bindAddress (Java keeps them in NettyServerConfig) and the tls.server.* keys.
type startupConfig struct {
	NamesrvConfig
	ListenPort int `prop:"listenPort"`
	// ServerKeys is bindAddress and the remoting bounds (serverWorkerThreads,
	// serverChannelMaxIdleTimeSeconds, com.rocketmq.remoting.frameMaxLength,
	// serverChannelMaxInflight), as the broker's.
	startup.ServerKeys
	// TLSServerKeys are tls.server.mode, certPath, keyPath, need.client.auth and trustCertPath,
	// read as mqbroker reads them (Java: TlsSystemConfig, shared by both servers), so an
	// official client WithTls reaches a standalone mqnamesrv of a TLS-only setup.
	remoting.TLSServerKeys
}

// validate is the one check of a name server's startup config, for -p and for a start.
func (sc *startupConfig) validate() error {
	var errs []error
	if err := sc.NamesrvConfig.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := sc.ServerKeys.Validate("namesrv"); err != nil {
		errs = append(errs, err)
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
	fs := startup.NewFlags("mqnamesrv", "name server config properties file", stderr)
	fs.SetUsage("mqnamesrv [-c namesrv.conf] [-p]", func(w io.Writer) {
		fmt.Fprintf(w, "  listenPort=%d, bindAddress=%s (every interface)\n  kvConfigPath=%s\n",
			DefaultListenPort, startup.DefaultBindAddress, DefaultNamesrvConfig().KvConfigPath)
	})
	if err := fs.Parse(args); err != nil {
		return nil, err // -h, a bad flag (printed with the usage; wraps conf.ErrUsage), extra arguments
	}
	file := fs.ConfigFile
	sc := startupConfig{NamesrvConfig: DefaultNamesrvConfig(), ListenPort: DefaultListenPort,
		ServerKeys: startup.DefaultServerKeys(), TLSServerKeys: remoting.DefaultTLSServerKeys()}
	if *file != "" {
		_, unknown, err := startup.ApplyConfigFile(*file, &sc)
		if err != nil {
			return nil, err
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
	ts, err := sc.TLSServerKeys.Build() // a bad mode or an unreadable certificate: as mqbroker's
	if err != nil {
		return nil, err
	}
	if *fs.PrintConfig {
		startup.PrintConfig(stdout, &sc)
		return nil, ErrPrintedConfig
	}
	serverCfg := remoting.DefaultServerConfig()
	serverCfg.ListenAddr = sc.ListenAddr(sc.ListenPort)
	sc.ApplyTo(&serverCfg)
	serverCfg.TLS = ts
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
