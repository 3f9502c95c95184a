// Package store is the broker's message store: the CommitLog every message is appended to,
// one ConsumeQueue per (topic, queueId) indexing it, the services that build and flush them,
// the checkpoint, abort and lock files, and recovery at start. It writes RocketMQ 4.9's
// on-disk formats byte for byte (../shared/reference/store-formats.md §1–§3, §5, §6, §8, §9).
//
// Java: the store module, org.apache.rocketmq.store (DefaultMessageStore, CommitLog,
// ConsumeQueue, MappedFile, MappedFileQueue, AllocateMappedFileService, StoreCheckpoint,
// ReputMessageService, FlushRealTimeService, FlushConsumeQueueService).
//
// Layer 1: imports only mq/trace, mq/primitive, mq/internal/... and golang.org/x/sys/unix.
// The broker adapts results to response codes and implements MessageArrivingListener.
// Linux only (mmap, fallocate, OFD locks).
//
// # Files, in reading order
//
//	status.go             PutMessageStatus, GetMessageStatus, AppendMessageResult, results
//	config.go             MessageStoreConfig (RocketMQ keys in prop tags), defaults, Validate
//	mapped_file.go        MappedFile: one mmapped, fallocated segment; positions; hold/release
//	mapped_file_queue.go  MappedFileQueue: a directory of segments forming one log
//	allocate.go           AllocateMappedFileService: creates the next CommitLog file ahead
//	message_encoder.go    record constants, MessageExtEncoder, tag hash, properties lookup
//	commit_log.go         CommitLog: put under the lock, doAppend, record reader, recovery
//	batch.go              batch put (SEND_BATCH_MESSAGE)
//	consume_queue.go      ConsumeQueue: 20-byte units, recovery, truncation
//	reput.go              ReputMessageService, dispatcher, MessageArrivingListener
//	flush.go              FlushRealTimeService (CommitLog), FlushConsumeQueueService
//	checkpoint.go         StoreCheckpoint
//	store.go              DefaultMessageStore: life cycle, put, get, offsets
//	sys_linux.go          fallocate, mmap, msync/fdatasync, OFD lock
//
// # Directory layout (store root)
//
//	commitlog/00000000000000000000      CommitLog segments, named by start offset (20 digits)
//	consumequeue/<topic>/<queueId>/<20-digit start byte offset>
//	checkpoint                          4096 bytes
//	abort                               empty; present while a store runs
//	lock                                "lock"; exclusively locked on byte 0 by the running store
//
// # CommitLog record (big-endian; IPv4 hosts; n body, t topic, p properties bytes)
//
//	+--------+--------+--------+--------+--------+----------------+----------------+
//	| TOTAL  | MAGIC  | BODY   | QUEUE  | FLAG   | QUEUEOFFSET    | PHYSICALOFFSET |
//	| SIZE 4 | DAA320A7 CRC 4 | ID 4   | 4      | 8 (CQ units)   | 8 (bytes)      |
//	+--------+--------+--------+--------+--------+----------------+----------------+
//	0        4        8        12       16       20               28
//	+--------+----------------+----------------+----------------+----------------+
//	| SYSFLAG| BORNTIMESTAMP  | BORNHOST       | STORETIMESTAMP | STOREHOST      |
//	| 4      | 8 (ms)         | 4 ip + 4 port  | 8 (ms, in lock)| 4 ip + 4 port  |
//	+--------+----------------+----------------+----------------+----------------+
//	36       40               48               56               64
//	+--------+----------------+--------+------+-----+-------+-------+------------+
//	| RECONS.| PREPARED TX    | BODY   | BODY | TOP.| TOPIC | PROPS | PROPERTIES |
//	| TIMES 4| OFFSET 8       | LEN 4  | n    | 1   | t     | LEN 2 | p          |
//	+--------+----------------+--------+------+-----+-------+-------+------------+
//	72       76               84       88     88+n  89+n    89+n+t  91+n+t
//
// TOTALSIZE = 91 + n + t + p (12 more per IPv6 host). BODYCRC = CRC-32 IEEE & 0x7FFFFFFF.
// A record never crosses a file end: when record + 8 > bytes left, an 8-byte blank record
// is written instead and the record goes to the next file:
//
//	+---------------------------+------------+
//	| TOTALSIZE = bytes left 4  | CBD43194 4 |   (the rest of the file stays zero)
//	+---------------------------+------------+
//
// # ConsumeQueue unit (20 bytes, big-endian)
//
//	+----------------------------+--------------+----------------------------+
//	| commitLogOffset 8 (bytes)  | size 4       | tagsCode 8                 |
//	+----------------------------+--------------+----------------------------+
//	0                            8              12                           20
//
// Unit k (queue offset k, in ConsumeQueue units) is at byte k·20 of the queue's log.
//
// # checkpoint (4096 bytes)
//
//	+--------------------------+--------------------------+--------------------------+------+
//	| physicMsgTimestamp 8 (ms)| logicsMsgTimestamp 8 (ms)| indexMsgTimestamp 8 (ms) | 0... |
//	+--------------------------+--------------------------+--------------------------+------+
//	0                          8                          16                         24
//
// # Goroutines
//
//   - ReputMessageService (every 1 ms): dispatches new CommitLog records to ConsumeQueues and
//     tells the MessageArrivingListener. DoReput is one pass.
//   - FlushRealTimeService (flushIntervalCommitLog, woken by puts): async CommitLog flush.
//   - FlushConsumeQueueService (flushIntervalConsumeQueue): ConsumeQueue flush, checkpoint.
//   - AllocateMappedFileService: creates (and optionally warms) the next CommitLog file.
//
// With MessageStoreConfig.ManualServices only the allocator runs; callers drive DoReput,
// FlushCommitLog and FlushConsumeQueue, so a chapter's trace is deterministic. Shutdown stops
// the services, dispatches and flushes what is left, and waits for every goroutine.
//
// # Locks and publication
//
//   - CommitLog.putMu: one appender at a time; guards topicQueueTable (next queue offset per
//     topic-queueId) and every CommitLog file's write position. The store time is taken
//     inside it.
//   - A ConsumeQueue is written only by the reput goroutine (ReputMessageService.mu makes a
//     direct DoReput and the service take turns).
//   - MappedFile positions are atomics: the writer fills bytes, then advances wrotePosition;
//     readers read only below it (the race detector cannot see mmapped memory, so this rule is
//     the guarantee). Readers hold a file (hold/release) while touching its memory; destroy
//     and shutdown unmap only after the last release.
//   - MappedFileQueue's file list is copy-on-write (atomic pointer); changes take its mu.
//   - DefaultMessageStore.cqMu guards the ConsumeQueue table; stateMu the life cycle.
//
// # Flush system call
//
// A flush is fdatasync of the file (useMsync selects msync(MS_SYNC) of the dirty range).
// BenchmarkFlush, 16 KiB written through the mapping per flush, 2-core VM, two runs:
// fdatasync 285–350 µs, msync 315–355 µs — equal within noise, so the simpler fdatasync is
// the default. BenchmarkPutMessage (1 KiB, warm file): 300–650 ns and 2 allocations per put
// (the result and its offsetMsgId); BenchmarkDoReput: no allocation per record.
package store
