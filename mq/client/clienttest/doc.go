// Package clienttest holds what the producer's and the consumer's tests share: an embedded
// cluster sized for client tests, and names a test can hand to a group, a topic or a client
// instance. It is used by tests only. It does not import the client packages, so their
// in-package tests can use it; that is why it is not mq/mqtest, whose StartCluster serves the
// tests above the client (mqtest imports the producer), with smaller files (64 KiB, not the
// 1 MiB the client tests have always had).
//
// Java: none (RocketMQ's client tests mock the broker).
//
// # Files
//
//	cluster.go  StartCluster (name server and brokers with 1 MiB CommitLog files, 1000-unit
//	            ConsumeQueue files and room in the send queue), Name (the test's name as a
//	            group or topic may spell it), InstanceName (unique in the test binary)
//	stress.go   what the consumer stress tests share: StressDuration (-stress flag, $STRESS,
//	            or the short default), StressRand (a logged, replayable seed), the consumer
//	            sizes, Churn (members of a group started and stopped at random, and the duplicate
//	            bound at-least-once allows it), Deliveries (who got which message:
//	            missing, duplicated, unexpected, and each queue's owners)
//	orders.go   OrderLedger: the steps of orders as observed, and any step observed before
//	            its predecessor (the orderly consumer's stress and interop tests)
//
// Goroutines: those of the embedded.Cluster it starts, shut down at the test's cleanup. The
// instance counter is atomic; Deliveries' and OrderLedger's mutexes guard their tables; Churn is driven by one
// goroutine.
package clienttest
