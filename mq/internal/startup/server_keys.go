package startup

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
)

// DefaultBindAddress is where the servers listen unless bindAddress says otherwise: every
// interface.
const DefaultBindAddress = "0.0.0.0"

// ServerKeys are the NettyServerConfig keys a name server's or a broker's properties file may
// set beside its config struct (listenPort lives there: BrokerConfig holds the broker's, the
// name server's startup config its own).
type ServerKeys struct {
	// BindAddress is the IP the servers listen on (default 0.0.0.0, every interface; 127.0.0.1
	// keeps the process off the network). It is where a server listens, not what a broker
	// publishes: that is brokerIP1.
	//
	// Deviation: RocketMQ 4.9 always listens on every interface; bindAddress (default 0.0.0.0)
	// is RocketMQ 5's NettyServerConfig key, taken over as it is.
	BindAddress string `prop:"bindAddress"`
	// ServerWorkerThreads sizes a processor pool registered without its own size (default 8).
	// Java: NettyServerConfig#serverWorkerThreads (remoting.ServerConfig.ServerWorkerThreads).
	ServerWorkerThreads int `prop:"serverWorkerThreads"`
	// ServerChannelMaxIdleTimeSeconds closes a connection that has neither read nor written
	// for this long, in whole seconds in the file (default 120 s).
	// Java: NettyServerConfig#serverChannelMaxIdleTimeSeconds.
	ServerChannelMaxIdleTimeSeconds time.Duration `prop:"serverChannelMaxIdleTimeSeconds,s"`
	// FrameMaxLength is the largest frame read, in bytes, length field included (default
	// 16777216, 16 MiB); a larger frame closes the connection.
	// Deviation: RocketMQ reads it only as the JVM system property
	// com.rocketmq.remoting.frameMaxLength (NettySystemConfig); here the properties file may
	// set it under that name.
	FrameMaxLength int `prop:"com.rocketmq.remoting.frameMaxLength"`
	// ServerChannelMaxInflight is how many requests one connection may have queued or running
	// in the worker pools before its reader waits (default 256; held pulls do not count).
	// Deviation: RocketMQ has no such bound (remoting.ServerConfig.ChannelMaxInflight), so the
	// key is this project's, named after its NettyServerConfig neighbours.
	ServerChannelMaxInflight int `prop:"serverChannelMaxInflight"`
}

// DefaultServerKeys returns bindAddress=0.0.0.0 and remoting.DefaultServerConfig's bounds:
// 8 worker threads, 120 s idle, 16 MiB frames, 256 requests in flight per connection.
func DefaultServerKeys() ServerKeys {
	d := remoting.DefaultServerConfig()
	return ServerKeys{BindAddress: DefaultBindAddress, ServerWorkerThreads: d.ServerWorkerThreads,
		ServerChannelMaxIdleTimeSeconds: d.ChannelMaxIdle, FrameMaxLength: d.MaxFrameSize,
		ServerChannelMaxInflight: d.ChannelMaxInflight}
}

// minFrameMaxLength is the smallest frame limit accepted: the 8 bytes of the length fields
// plus room for a header (a smaller limit would refuse every request).
const minFrameMaxLength = 1024

// Validate refuses a bindAddress that is not an IP address and bounds that are not positive
// (a frame limit below 1024 bytes, an idle time under a second); component names the config in
// the message ("broker", "namesrv"), each error names its key.
func (k *ServerKeys) Validate(component string) error {
	var errs []error
	if net.ParseIP(k.BindAddress) == nil {
		errs = append(errs, fmt.Errorf("%s config: bindAddress %q is not an IP address", component, k.BindAddress))
	}
	if k.ServerWorkerThreads <= 0 {
		errs = append(errs, fmt.Errorf("%s config: serverWorkerThreads must be > 0, got %d", component, k.ServerWorkerThreads))
	}
	if k.ServerChannelMaxIdleTimeSeconds < time.Second {
		errs = append(errs, fmt.Errorf("%s config: serverChannelMaxIdleTimeSeconds must be >= 1, got %d",
			component, int64(k.ServerChannelMaxIdleTimeSeconds/time.Second)))
	}
	if k.FrameMaxLength < minFrameMaxLength {
		errs = append(errs, fmt.Errorf("%s config: com.rocketmq.remoting.frameMaxLength must be >= %d bytes, got %d",
			component, minFrameMaxLength, k.FrameMaxLength))
	}
	if k.ServerChannelMaxInflight <= 0 {
		errs = append(errs, fmt.Errorf("%s config: serverChannelMaxInflight must be > 0, got %d", component, k.ServerChannelMaxInflight))
	}
	return errors.Join(errs...)
}

// ApplyTo sets cfg's bounds from k: MaxFrameSize, ChannelMaxIdle, ChannelMaxInflight and
// ServerWorkerThreads (ListenAddr is ListenAddr's, with the port the caller knows).
func (k *ServerKeys) ApplyTo(cfg *remoting.ServerConfig) {
	cfg.MaxFrameSize = k.FrameMaxLength
	cfg.ChannelMaxIdle = k.ServerChannelMaxIdleTimeSeconds
	cfg.ChannelMaxInflight = k.ServerChannelMaxInflight
	cfg.ServerWorkerThreads = k.ServerWorkerThreads
}

// ListenAddr is "bindAddress:port", a remoting.ServerConfig's ListenAddr (port 0: ephemeral).
func (k *ServerKeys) ListenAddr(port int) string {
	return net.JoinHostPort(k.BindAddress, strconv.Itoa(port))
}
