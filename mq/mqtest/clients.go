package mqtest

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
)

// ProducerConfig is a chapter's producer of group on the name server at namesrvAddr, the same
// every run: on loopback under instance (its clientId is 127.0.0.1@instance), no scheduled task
// (the chapter's sends are all it does), and round-robin indexes that start at 0, so the first
// send goes to the first queue.
func ProducerConfig(group, namesrvAddr, instance string) producer.Config {
	pc := producer.DefaultConfig(group)
	pc.NamesrvAddr = namesrvAddr
	pc.ClientIP = "127.0.0.1"
	pc.InstanceName = instance
	pc.Options.DisableScheduledTasks = true
	pc.Options.IndexSeed = func() int32 { return -1 }
	return pc
}

// ConsumerConfig is a chapter's push consumer of group, the same every run in the way
// ProducerConfig's producer is: on loopback under instance, no scheduled task and no pull loop
// of its own (the chapter plays its rebalance, pulls and persists), round-robin indexes from 0.
func ConsumerConfig(group, namesrvAddr, instance string) consumer.Config {
	cfg := consumer.DefaultConfig(group)
	cfg.NamesrvAddr = namesrvAddr
	cfg.ClientIP = "127.0.0.1"
	cfg.InstanceName = instance
	cfg.Options.DisableScheduledTasks = true
	cfg.Options.IndexSeed = func() int32 { return -1 }
	return cfg
}
