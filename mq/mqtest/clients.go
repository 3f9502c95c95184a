package mqtest

import (
	"log/slog"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
)

// ClientSetup is a chapter's client, the same every run: on the name server at NamesrvAddr, on
// loopback under Instance (its clientId is 127.0.0.1@Instance), with no scheduled task (the
// scenario drives every loop), its steps logged to Logger on Clock and traced under TraceName.
// A zero Logger, Clock or TraceName keeps the client's default (untraced, the system clock, the
// component's own name).
type ClientSetup struct {
	NamesrvAddr, Instance, TraceName string
	Logger                           *slog.Logger
	Clock                            clock.Clock
}

// Apply writes the setup into a producer's or consumer's ClientConfig and Options (cfg.ClientConfig,
// cfg.Options). (It takes the shared parts rather than a consumer config: mq/client/consumer's own
// tests use this kit, which therefore cannot import that package.)
func (s ClientSetup) Apply(cc *client.ClientConfig, o *client.Options) {
	cc.NamesrvAddr = s.NamesrvAddr
	cc.ClientIP = "127.0.0.1"
	cc.InstanceName = s.Instance
	o.DisableScheduledTasks = true
	if s.Logger != nil {
		o.Logger = s.Logger
	}
	if s.Clock != nil {
		o.Clock = s.Clock
	}
	if s.TraceName != "" {
		o.TraceName = s.TraceName
	}
}

// ProducerConfig is a chapter's producer of group on the name server at namesrvAddr
// (ClientSetup under instance, untraced) whose round-robin indexes start at 0, so the first
// send goes to the first queue.
func ProducerConfig(group, namesrvAddr, instance string) producer.Config {
	pc := producer.DefaultConfig(group)
	ClientSetup{NamesrvAddr: namesrvAddr, Instance: instance}.Apply(&pc.ClientConfig, &pc.Options)
	pc.Options.IndexSeed = func() int32 { return -1 }
	return pc
}
