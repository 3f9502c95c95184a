// Package interop holds tests that drive our name server and broker with the official Apache
// RocketMQ Go client (github.com/apache/rocketmq-client-go/v2), unmodified: the client no one
// here wrote is the judge of the protocol.
//
// The tests start an embedded cluster on ephemeral loopback ports in a temp dir. They are left
// out of the race detector run: the official client has data races of its own.
package interop
