// Package embedded starts a name server and brokers in one process, on loopback, for tests,
// chapters and the default `go run ./mq/cmd/broker`.
//
// Java: none (RocketMQ's integration tests build the same thing from NamesrvController and
// BrokerController by hand).
//
// # Files
//
//	embedded.go  Config (how many brokers, where their stores live, listen addresses, a logger
//	             and hooks that adjust each broker's configs), Start (the name server first,
//	             then broker-a, broker-b, ... registered with it; with Slaves a slave of each,
//	             brokerId 1, following its master: StartSlave, StopSlave; StopMaster and
//	             StartMaster play a master going down and coming back) and Cluster.Shutdown
//	             (the slaves, the brokers newest first, then the name server); StartNamesrv,
//	             StartBroker: one server each
//	in_process_namesrv.go  StartInProcessNamesrv: the name server mqbroker runs beside its
//	             broker when no name server is given (where the broker binds, on 9876)
//	small.go     SmallFiles and SmallStoreConfig: the small store files (64 KiB CommitLog,
//	             100-unit ConsumeQueue, 64-slot index) every chapter and test shares
//
// Goroutines: those of the servers it starts; Shutdown stops them all and waits for them.
package embedded
