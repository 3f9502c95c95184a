package broker

import (
	"errors"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

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
	if err := sc.Keys.Validate("broker"); err != nil {
		return err
	}
	return validateConfigs(&sc.Broker, &sc.Store)
}

// knownKeys is every key a broker.conf may hold: the configs' keys and the not-built ones.
func (sc *StartupConfig) knownKeys() []string {
	keys := conf.Keys(&sc.Broker, &sc.Store, &sc.Keys, &sc.TLS)
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
