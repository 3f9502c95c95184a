package namesrv

import "github.com/annotated-rocketmq/rocketmq-go/mq/clock"

// Option sets what the name server takes besides NamesrvConfig (which holds only RocketMQ's
// keys and the two timings RocketMQ hard-codes).
type Option func(*NamesrvController)

// WithClock sets the name server's one clock; nil or absent means clock.System. It stamps each
// broker's registration (BrokerLiveInfo.LastUpdateTimestamp) and decides expiry in
// ScanNotActiveBroker. Tests and chapters give it a clock.Manual, advance it and run the scan
// themselves. The remoting server keeps the system clock: connection idleness is wall time.
func WithClock(c clock.Clock) Option { return func(n *NamesrvController) { n.clock = clock.Or(c) } }
