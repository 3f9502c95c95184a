package startup

import (
	"fmt"
	"net"
	"strconv"
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
}

// DefaultServerKeys returns bindAddress=0.0.0.0.
func DefaultServerKeys() ServerKeys { return ServerKeys{BindAddress: DefaultBindAddress} }

// Validate refuses a bindAddress that is not an IP address; component names the config in the
// message ("broker", "namesrv").
func (k *ServerKeys) Validate(component string) error {
	if net.ParseIP(k.BindAddress) == nil {
		return fmt.Errorf("%s config: bindAddress %q is not an IP address", component, k.BindAddress)
	}
	return nil
}

// ListenAddr is "bindAddress:port", a remoting.ServerConfig's ListenAddr (port 0: ephemeral).
func (k *ServerKeys) ListenAddr(port int) string {
	return net.JoinHostPort(k.BindAddress, strconv.Itoa(port))
}
