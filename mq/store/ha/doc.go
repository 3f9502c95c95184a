// Package ha replicates a broker's CommitLog from a master to its slaves over plain TCP, byte
// for byte, and makes a SYNC_MASTER put wait until a slave holds it. It speaks RocketMQ 4.9's
// HA protocol (a Java slave can follow a Go master and the other way round).
//
// Java: org.apache.rocketmq.store.ha (HAService, HAService.AcceptSocketService,
// HAService.GroupTransferService, HAService.HAClient, HAConnection,
// HAConnection.ReadSocketService, HAConnection.WriteSocketService, WaitNotifyObject).
//
// Layer 2: above mq/store (it reads and appends the CommitLog through DefaultMessageStore and
// implements store.ReplicaService), below mq/broker, which creates one HAService per store
// (Java: DefaultMessageStore owns it), starts it after the store and shuts it down before.
//
// # Protocol
//
// The slave connects to the master's haListenPort (listenPort + 1 by default) and the two
// sides then stream, with no remoting frame around the bytes:
//
//	slave → master: report, 8 bytes
//	+-----------------------------------+
//	| slave max CommitLog offset int64  |  big-endian; the first one sets where
//	+-----------------------------------+  transfer starts (0: the master's last file)
//
//	master → slave: transfer frame, 12-byte header + body
//	+----------------------+----------------+------------------------------+
//	| phyOffset int64 (BE) | bodySize int32 | bodySize bytes of CommitLog  |
//	|                      | (BE), 0 = beat | starting at phyOffset        |
//	+----------------------+----------------+------------------------------+
//	 0                      8                12
//
// A body is at most haTransferBatchSize bytes (32 KiB) and never crosses a CommitLog file
// end, so it may end inside a record: the slave's reput waits for the rest. The slave appends
// a body only at its own max offset (store.DefaultMessageStore.AppendToCommitLog); a frame
// for another offset closes the connection. It reports its new max offset after each append
// and every haSendHeartbeatInterval (5 s); the master sends a header alone as a heartbeat
// after haSendHeartbeatInterval without a frame. Either side closes a connection silent for
// haHousekeepingInterval (20 s). Bytes that break the protocol (a negative offset, a report
// beyond the master's CommitLog end, a body size beyond 4 MiB, a frame for another offset than
// the slave's end) close that connection only: ErrProtocol. Bytes that do not fit the slave's
// CommitLog files (the master's mappedFileSizeCommitLog differs) close it with
// store.ErrFileSizeMismatch, logged once at ERROR: the master resends them on each reconnect.
//
// # SYNC_MASTER
//
// CommitLog#submitReplicaRequest (in mq/store) asks HAService.IsSlaveOK (a slave connected,
// less than haSlaveFallbehindMax behind): no → SLAVE_NOT_AVAILABLE at once; yes → a
// GroupCommitRequest for the end of the put's record(s) goes to GroupTransferService, which
// completes it PUT_OK when push2SlaveMaxOffset (the highest offset a slave acknowledged)
// reaches it, or FLUSH_SLAVE_TIMEOUT after syncFlushTimeout.
//
// # Goroutines and locks
//
// Without ManualServices: AcceptSocketService's accept loop; per connection a read loop
// (ReadSocketService) and a write loop (WriteSocketService); GroupTransferService's loop; the
// HAClient loop (idle without a master address). HAService.mu guards the connection list;
// push2SlaveMaxOffset and the connection count are atomics. The state of a ReadSocketService,
// WriteSocketService and HAClient belongs to the one goroutine stepping it; HAClient.mu
// guards only its socket (closed from other goroutines) and is not held while dialling the
// master (Shutdown abandons a connect in progress). Each connection costs its two loops and a
// 1 KiB report buffer, whoever opened it.
//
// # Stepping by hand
//
// With store.Options.ManualServices, HAService.Start listens but starts no goroutine, and the
// caller plays each loop one pass at a time, in the protocol's order, over real TCP (a stepped
// read blocks until the other side's stepped write has happened):
//
//	slave.HAClient().Dial()                    open the TCP connection (no step)
//	master.AcceptSocketService().AcceptOne()  AcceptSocketService#run → *HAConnection
//	slave.HAClient().ConnectMaster()           HAClient#connectMaster: take it into use
//	slave.HAClient().ReportOnce()              IsTimeToReportOffset → 8-byte report
//	conn.ReadOnce()                            ReadSocketService#processReadEvent → notifyTransferSome
//	conn.TransferOnce()                        WriteSocketService#run → transferData
//	slave.HAClient().ReadOnce()                HAClient#processReadEvent → dispatchReadRequest
//	                                           (appends, then reports the new max offset)
//	conn.ReadOnce()                            the master reads that report
//	master.GroupTransferService().DoWaitTransfer()  completes SYNC_MASTER puts (PUT_OK or,
//	                                           past syncFlushTimeout on the store clock,
//	                                           FLUSH_SLAVE_TIMEOUT)
//
// A SYNC_MASTER put blocks until DoWaitTransfer completes it, so a chapter puts with
// store.DefaultMessageStore.AsyncPutMessage and reads the channel after DoWaitTransfer. The
// role can be switched between puts (store.DefaultMessageStore.Config().BrokerRole) when
// nothing runs concurrently. The real loops call the same bodies (AcceptOne, RunOnce, the
// connection's pass methods).
//
// # Files, in reading order
//
//	doc.go                     this overview
//	frame.go                   the report and the transfer header: sizes, encode, checked decode
//	ha_service.go              HAService: start, shutdown, push2SlaveMaxOffset, isSlaveOK, putRequest
//	accept_socket_service.go   AcceptSocketService: beginAccept, the accept loop (AcceptOne)
//	ha_connection.go           HAConnection: one slave on the master, its two services
//	read_socket_service.go     ReadSocketService: the slave's reports, housekeeping
//	write_socket_service.go    WriteSocketService: transfer frames and heartbeats
//	transfer_data.go           WriteSocketService#transferData, one frame written (transfer_data_stub.go:
//	                           its blank twin for the exercise mode, tag ex_ch09)
//	group_transfer_service.go  GroupTransferService: SYNC_MASTER puts waiting for a slave
//	ha_client.go               HAClient: the slave's connection, reports, dispatch, reconnect
//	dispatch_read_request.go   HAClient#dispatchReadRequest, the frames a slave appends
//	                           (dispatch_read_request_stub.go: its blank twin, tag ex_ch09)
//	reconnect_log.go           reconnectLog: the slave's reconnect WARNs, rate-limited; a master refusing it;
//	                           the one ERROR of a store.ErrFileSizeMismatch
//	notify.go                  waitNotifyObject: wakes the write loops
//	deadline_clock.go          socket deadlines (wall time)
package ha
