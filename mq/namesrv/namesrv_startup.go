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
	// BindAddress is the IP to listen on; "" listens on every interface (Java 4.9: always).
	//
	// Deviation: RocketMQ 4.9 has no such key (5.x's NettyServerConfig has bindAddress); it lets
	// tests and chapters keep the name server on loopback.
	BindAddress string `prop:"bindAddress"`
}

// Main parses the command line, creates the controller and starts it, as mqnamesrv does.
// Flags: -c FILE (properties file, RocketMQ keys), -p (print the effective config and return
// ErrPrintedConfig). stdout receives -p output and the start banner; tr may be nil; opts go to
// the controller (WithClock). Java: NamesrvStartup#main (main0).
func Main(args []string, stdout io.Writer, tr *trace.Tracer, opts ...Option) (*NamesrvController, error) {
	if tr.Enabled() {
		tr.Step("NamesrvStartup#main", slog.Int("args", len(args)))
	}
	c, err := CreateNamesrvController(args, stdout, tr, opts...)
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
// returns an unstarted controller. Java: NamesrvStartup#createNamesrvController.
func CreateNamesrvController(args []string, stdout io.Writer, tr *trace.Tracer, opts ...Option) (*NamesrvController, error) {
	fs := flag.NewFlagSet("mqnamesrv", flag.ContinueOnError)
	fs.SetOutput(stdout)
	file := fs.String("c", "", "name server config properties file")
	printCfg := fs.Bool("p", false, "print the effective config and exit")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	sc := startupConfig{NamesrvConfig: DefaultNamesrvConfig(), ListenPort: DefaultListenPort}
	if *file != "" {
		f, err := os.Open(*file)
		if err != nil {
			return nil, fmt.Errorf("namesrv config: %w", err)
		}
		props, err := conf.ParseProperties(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("namesrv config %s: %w", *file, err)
		}
		unknown, err := conf.Apply(props, &sc)
		if err != nil {
			return nil, err
		}
		for _, k := range unknown {
			fmt.Fprintf(stdout, "warning: unknown config key %q ignored\n", k)
		}
	}
	if *printCfg {
		fmt.Fprint(stdout, conf.Format(&sc))
		return nil, ErrPrintedConfig
	}
	if err := sc.NamesrvConfig.Validate(); err != nil {
		return nil, err
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
		return err
	}
	return c.Start()
}
