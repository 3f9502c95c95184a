package broker

import (
	"errors"
	"fmt"
	"strings"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// notBuiltKey is a RocketMQ config key whose feature this broker does not have yet. The key is
// accepted with the value that leaves the feature off (Java's default, so a stock broker.conf
// starts), and any other value is refused at start with a message naming the key: a broker
// that silently ran without SYNC_MASTER replication or ACLs would lie to its operator.
type notBuiltKey struct {
	key string
	// off is the accepted value; for a boolean key "false", and (as Java's
	// Boolean.parseBoolean) anything but "true" in any case counts as false.
	off     string
	boolean bool
	feature string
}

// notBuiltKeys is the one table of refused settings; remove a row when its feature lands.
// Keys the broker's config structs do not hold are accepted with their off value, without an
// "unknown key" warning.
var notBuiltKeys = []notBuiltKey{
	{key: "enableDLegerCommitLog", off: "false", boolean: true, feature: "the DLedger (Raft) CommitLog"},
	{key: "enablePropertyFilter", off: "false", boolean: true, feature: "SQL92 property filtering"},
	{key: "enableCalcFilterBitMap", off: "false", boolean: true, feature: "consumer filter bitmaps"},
	{key: "enableConsumeQueueExt", off: "false", boolean: true, feature: "the ConsumeQueue extension"},
	{key: "duplicationEnable", off: "false", boolean: true, feature: "CommitLog duplication"},
	{key: "fetchNamesrvAddrByAddressServer", off: "false", boolean: true, feature: "fetching name servers from an address server"},
	{key: "compressedRegister", off: "false", boolean: true, feature: "compressed REGISTER_BROKER bodies"},
}

// isNotBuiltKey reports whether key is in notBuiltKeys.
func isNotBuiltKey(key string) bool {
	for _, k := range notBuiltKeys {
		if k.key == key {
			return true
		}
	}
	return false
}

// checkNotBuilt refuses every notBuiltKeys entry whose value in props turns its feature on;
// keys absent from props are fine. The error names each key, its value and the feature.
func checkNotBuilt(props map[string]string) error {
	var errs []error
	for _, k := range notBuiltKeys {
		v, ok := props[k.key]
		if !ok {
			continue
		}
		on := v != k.off
		if k.boolean {
			on = strings.EqualFold(strings.TrimSpace(v), "true")
		}
		if on {
			errs = append(errs, fmt.Errorf("broker config: %s=%s is refused: not built yet: %s (accepted: %s=%s)",
				k.key, v, k.feature, k.key, k.off))
		}
	}
	return errors.Join(errs...)
}

// effectiveProperties is the broker and store configs as properties (key → value), read back
// from conf.Format's key=value lines (a line without '=' — a value holding a newline — is
// skipped; no key checked here can hold one).
func effectiveProperties(cfg *BrokerConfig, storeCfg *store.MessageStoreConfig) map[string]string {
	props := map[string]string{}
	for _, line := range strings.Split(conf.Format(cfg, storeCfg), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			props[k] = v
		}
	}
	return props
}
