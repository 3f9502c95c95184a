package broker

// Option sets what NewBrokerController takes besides RocketMQ's configs (BrokerConfig and
// MessageStoreConfig hold only RocketMQ's keys).
type Option func(*BrokerController)
