package mqtest

import "github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"

// ProducerConfig is a chapter's producer of group on the name server at namesrvAddr, the same
// every run: on loopback under instance (its clientId is 127.0.0.1@instance), no scheduled task
// (the chapter's sends are all it does), and round-robin indexes that start at 0, so the first
// send goes to the first queue. (No consumer counterpart: mq/client/consumer's own tests use
// this kit, which therefore cannot import that package.)
func ProducerConfig(group, namesrvAddr, instance string) producer.Config {
	pc := producer.DefaultConfig(group)
	pc.NamesrvAddr = namesrvAddr
	pc.ClientIP = "127.0.0.1"
	pc.InstanceName = instance
	pc.Options.DisableScheduledTasks = true
	pc.Options.IndexSeed = func() int32 { return -1 }
	return pc
}
