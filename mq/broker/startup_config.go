package broker

import (
	"errors"
	"fmt"
	"net"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// DefaultBindAddress is where the broker's and the name server's servers listen unless
// bindAddress says otherwise: every interface.
const DefaultBindAddress = "0.0.0.0"

// ServerKeys are the NettyServerConfig keys a broker.conf may set besides listenPort (which
// BrokerConfig holds, as BrokerStartup reads it).
type ServerKeys struct {
	// BindAddress is the IP the main and the fast (VIP) server listen on (default 0.0.0.0,
	// every interface; 127.0.0.1 keeps the broker off the network). It is where the broker
	// listens, not what it publishes: that is brokerIP1.
	//
	// Deviation: RocketMQ 4.9 always listens on every interface; bindAddress (default 0.0.0.0)
	// is RocketMQ 5's NettyServerConfig key, taken over as it is.
	BindAddress string `prop:"bindAddress"`
}

// DefaultServerKeys returns bindAddress=0.0.0.0.
func DefaultServerKeys() ServerKeys { return ServerKeys{BindAddress: DefaultBindAddress} }

// Validate refuses a bindAddress that is not an IP address.
func (k *ServerKeys) Validate() error {
	if net.ParseIP(k.BindAddress) == nil {
		return fmt.Errorf("broker config: bindAddress %q is not an IP address", k.BindAddress)
	}
	return nil
}

// validateConfigs is the one validation of a broker's configs, run by ParseCommandLine (so -p
// refuses what a start would) and by NewBrokerController (for configs built in code): each
// config's Validate, then the settings whose feature is not built.
func validateConfigs(cfg *BrokerConfig, storeCfg *store.MessageStoreConfig) error {
	if err := errors.Join(cfg.Validate(), storeCfg.Validate()); err != nil {
		return err
	}
	return checkNotBuilt(effectiveProperties(cfg, storeCfg))
}

// Validate is what a start would refuse of sc, with the same message: see validateConfigs,
// plus the server keys.
func (sc *StartupConfig) Validate() error {
	if err := sc.Keys.Validate(); err != nil {
		return err
	}
	return validateConfigs(&sc.Broker, &sc.Store)
}

// knownKeys is every key a broker.conf may hold: the configs' keys and the not-built ones.
func (sc *StartupConfig) knownKeys() []string {
	keys := conf.Keys(&sc.Broker, &sc.Store, &sc.Keys)
	for _, k := range notBuiltKeys {
		keys = append(keys, k.key)
	}
	return keys
}

// UnknownKeysText lists UnknownKeys for the warning, each with "(did you mean X?)" when one
// known key is close to it; "" when there are none.
func (sc *StartupConfig) UnknownKeysText() string {
	return conf.DescribeUnknown(sc.UnknownKeys, sc.knownKeys())
}
