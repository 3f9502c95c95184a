package broker

import "github.com/annotated-rocketmq/rocketmq-go/mq/store"

// WithStoreOptions gives the message store its Go-only options (clock, manual services,
// event listeners: store.Options), which MessageStoreConfig — RocketMQ's keys only — does not
// hold. Absent, the store runs with the zero Options: production behaviour.
func WithStoreOptions(o store.Options) Option { return func(b *BrokerController) { b.storeOpts = o } }
