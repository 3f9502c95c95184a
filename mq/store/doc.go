// Package store is the broker's message store: the CommitLog every message is appended to,
// one ConsumeQueue per (topic, queueId) indexing it, the IndexFiles that find messages by key,
// the services that build, flush and clean them, the checkpoint, abort and lock files, and
// recovery at start (normal after a clean shutdown, abnormal after a crash). It writes
// RocketMQ 4.9's on-disk formats byte for byte (store-formats.md §1–§10).
//
// Java: the store module, org.apache.rocketmq.store (DefaultMessageStore, CommitLog,
// ConsumeQueue, MappedFile, MappedFileQueue, AllocateMappedFileService, StoreCheckpoint,
// RunningFlags, ReputMessageService, CommitLog.GroupCommitService, FlushDiskWatcher,
// CommitLog.FlushRealTimeService, CommitLog.CommitRealTimeService, TransientStorePool,
// FlushConsumeQueueService, index.IndexService, index.IndexFile, CleanCommitLogService,
// CleanConsumeQueueService).
//
// Layer 1: imports only mq/clock, mq/trace, mq/primitive, mq/internal/... and
// golang.org/x/sys/unix. The broker adapts results to response codes and implements
// MessageArrivingListener; chapter 9's HA implements ReplicaService. Linux and macOS (mmap,
// block allocation, the store lock: sys_*.go); any other system, Windows among them, stops
// the build with one error saying so (sys_unsupported.go).
//
// # Parts and what each holds
//
// DefaultMessageStore is a facade: NewDefaultMessageStore builds each part from what it uses
// and wires them; no part holds the facade.
//
//   - storeEnv (every part): the config, the Options, the clock, the tracer, the operating log,
//     the store root — values nobody writes.
//   - CommitLog: its MappedFileQueue (with the allocator and the TransientStorePool), the
//     running flags, the checkpoint, and its flush services (GroupCommitService,
//     FlushDiskWatcher, FlushRealTimeService, CommitRealTimeService), which hold their
//     CommitLog as Java's inner classes do. After each appended SYNC_MASTER put it asks
//     its ReplicaService (nil: none; chapter 9's HAService) for a slave and hands it a
//     GroupCommitRequest the put waits for (joined with the SYNC_FLUSH one). Recovery takes the
//     ConsumeQueue table, the dispatchers and the IndexService as parameters.
//   - consumeQueueTable: the ConsumeQueues by topic and queue id, consumequeue.list as Load
//     read it and the queues marked for Start to rebuild; each ConsumeQueue holds its
//     MappedFileQueue, the checkpoint (unit store times) and the running flags.
//   - IndexService: the index files, the checkpoint, the running flags.
//   - dispatcherList: CommitLogDispatcherBuildConsumeQueue (the table),
//     CommitLogDispatcherBuildIndex (the IndexService; registered only when
//     messageIndexEnable), then AddDispatcher's.
//   - ReputMessageService: the CommitLog, the dispatchers, the MessageArrivingListener.
//   - FlushConsumeQueueService: the table, the checkpoint and the reput service (its
//     position goes into consumequeue.list).
//   - CleanCommitLogService: the CommitLog and the running flags; CleanConsumeQueueService:
//     the CommitLog (its min offset), the table and the IndexService.
//
// Offsets: CommitLogOffset (bytes of the CommitLog) and QueueOffset (units of one
// ConsumeQueue) are distinct types throughout the API. Go-only settings (clock, manual
// services, time zone, disk usage, disk ratios) and the event hooks (EventListener) are
// Options, given to the constructor next to MessageStoreConfig, which holds RocketMQ's keys.
//
// # Files, in reading order
//
//	status.go                       PutMessageStatus, GetMessageStatus, AppendMessageResult, results
//	offsets.go                      CommitLogOffset, QueueOffset
//	config.go                       MessageStoreConfig (RocketMQ keys in prop tags), defaults, Validate
//	options.go                      Options (clock, manual services, …), EventListener
//	store_env.go                    storeEnv, the store clock, root, log; RunningFlags
//	mapped_file.go                  MappedFile: one mmapped, fallocated segment; positions (wrote,
//	                                committed, flushed); write buffer; commit, flush; hold/release
//	mapped_file_queue.go            MappedFileQueue: a directory of segments forming one log
//	transient_store_pool.go         TransientStorePool: mlocked write buffers (transientStorePoolEnable)
//	allocate.go                     AllocateMappedFileService: creates the next CommitLog file ahead
//	message_encoder.go              record constants, MessageExtEncoder, tag hash, properties lookup
//	commit_log.go                   CommitLog: its parts, put under the lock, submitFlushRequest,
//	                                ReplicaService, reads
//	commit_log_append.go            a slave's appendData: the master's bytes, their record headers
//	                                checked against the slave's file (ErrFileSizeMismatch)
//	append_message_callback.go      DefaultAppendMessageCallback, the queue-offset table
//	do_append.go                    DefaultAppendMessageCallback#doAppend (do_append_stub.go: its
//	                                blank twin for the exercise mode, tag ex_ch03)
//	batch.go                        batch put (SEND_BATCH_MESSAGE)
//	dispatch_request.go             DispatchRequest, the record reader (checkMessageAndReturnSize)
//	commit_log_recover.go           CommitLog recovery, normal and abnormal
//	group_commit_service.go         SYNC_FLUSH: GroupCommitRequest, GroupCommitService
//	group_commit_swap_requests.go   GroupCommitService#swapRequests (group_commit_swap_requests_stub.go:
//	                                its blank twin for the exercise mode, tag ex_ch04)
//	group_commit_do_commit.go       GroupCommitService#doCommit (group_commit_do_commit_stub.go: its
//	                                blank twin, tag ex_ch04)
//	flush_disk_watcher.go           FlushDiskWatcher: FLUSH_DISK_TIMEOUT past syncFlushTimeout
//	flush_real_time_service.go      ASYNC_FLUSH: FlushRealTimeService; flushCommitLogService,
//	                                what it shares with the commit service
//	commit_real_time_service.go     CommitRealTimeService (the pool's commit)
//	checkpoint.go                   StoreCheckpoint
//	consume_queue.go                ConsumeQueue: 20-byte units, recovery, truncation, iterator
//	put_message_position_info.go    ConsumeQueue#putMessagePositionInfo, one unit written
//	                                (put_message_position_info_stub.go: its blank twin, tag ex_ch03)
//	consume_queue_repair.go         dropping the files that break a queue (a lost middle file, a short last one)
//	consume_queue_list.go           consumequeue.list: each queue's flushed length, so a lost or short queue is rebuilt
//	consume_queue_table.go          the ConsumeQueues by topic and queue id, their loops
//	flush_consume_queue_service.go  FlushConsumeQueueService
//	commit_log_dispatcher.go        MessageArrivingListener, CommitLogDispatcher, the two dispatchers
//	reput_message_service.go        ReputMessageService
//	index_file.go                   IndexFile: header, hash slots, chained entries; the key hash
//	index_service.go                IndexService
//	clean_commit_log_service.go     CleanCommitLogService, the disk check
//	clean_consume_queue_service.go  CleanConsumeQueueService
//	store.go                        DefaultMessageStore: the parts, the constructor
//	store_load.go                   Load (lock, load, recovery), Start, Shutdown
//	store_put.go                    PutMessage, the store checks, AppendToCommitLog
//	store_get.go                    GetMessage (through a ConsumeQueue iterator), lookups by offset
//	store_offsets.go                offset queries, lookups by time, flush positions, DeleteTopics
//	store_query.go                  QueryMessage (by key, through the index; each hit checked
//	                                against its record's topic and keys)
//	store_stats.go                  StoreStatsService: the put and get totals
//	store_clean.go                  CleanFilesPeriodically, IsSpaceFull, manual deletion
//	store_services.go               the services and flush steps for chapters (ManualServices)
//	sys_unix.go                     Linux and macOS: mmap, madvise, mlock, msync, ftruncate, statfs
//	sys_linux.go                    Linux: fallocate, fdatasync, OFD lock, RAM size
//	sys_darwin.go                   macOS: F_PREALLOCATE, F_FULLFSYNC, flock, RAM size
//	sys_unsupported.go              any other system: the one build error that says so
//
// # Directory layout (store root; Load creates the directories, index only when enabled)
//
//	commitlog/00000000000000000000      CommitLog segments, named by start offset (20 digits)
//	consumequeue/<topic>/<queueId>/<20-digit start byte offset>
//	index/<yyyyMMddHHmmssSSS>           IndexFiles, named by creation time (store clock, Location)
//	checkpoint                          4096 bytes
//	abort                               empty; present while a store runs
//	lock                                "lock"; exclusively locked on byte 0 by the running store
//	consumequeue.list                   "reputFromOffset N", then "topic/queueId maxOffset minPhysicOffset"
//	                                    per queue with files; written at each checkpoint flush, at a clean
//	                                    stop, at Start and by DeleteTopics (new here; Java has no such file)
//	config/                             the broker's JSON config files (topics.json, ...)
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
// # IndexFile (40 + maxHashSlotNum·4 + maxIndexNum·20 bytes; 420,000,040 by default)
//
//	header 40:  beginTimestamp 8 | endTimestamp 8 | beginPhyOffset 8 | endPhyOffset 8 |
//	            hashSlotCount 4 | indexCount 4 (next entry number, from 1)
//	slot 4:     number of the newest entry of the slot (0 = empty), slot = keyHash % slots
//	entry 20:   keyHash 4 | phyOffset 8 (bytes) | timeDiff 4 (s since beginTimestamp) |
//	            prevIndex 4 (the slot's previous entry)
//
// keyHash = |Java String#hashCode("topic#key")|. Keys: each word of KEYS and the UNIQ_KEY.
// Index files are created sparse and allocated in 64 KiB chunks as they are written.
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
//   - SYNC_FLUSH: GroupCommitService (every 10 ms or woken by a put): one flush per group of
//     waiting puts; FlushDiskWatcher: answers FLUSH_DISK_TIMEOUT to puts past syncFlushTimeout.
//   - ASYNC_FLUSH: FlushRealTimeService (flushIntervalCommitLog, woken by puts or commits);
//     with the pool also CommitRealTimeService (commitIntervalCommitLog, woken by puts).
//   - FlushConsumeQueueService (flushIntervalConsumeQueue): ConsumeQueue flush, checkpoint.
//   - AllocateMappedFileService: creates (and optionally warms) the next CommitLog file.
//   - CleanFilesService (every cleanResourceInterval, first after 60 s): CleanFilesPeriodically.
//   - DiskCheckService (every 10 s, first after 1 s): IsSpaceFull, the disk-full mark.
//   - StoreStatsService (every second): samples the put and get totals for the TPS figures.
//   - a short-lived goroutine per full index file flushes it (IndexService.flushes), each
//     after the one before, so indexMsgTimestamp never passes a file still being written back.
//
// With Options.ManualServices only the allocator runs; callers drive DoReput (or
// ReputMessageService().RunOnce), GroupCommitService().RunOnce, FlushDiskWatcher().RunOnce,
// CommitRealTimeService().RunOnce, FlushRealTimeService().RunOnce (or FlushCommitLog,
// CommitCommitLog), FlushConsumeQueue, CleanFilesPeriodically, IsSpaceFull and
// StoreStatsService().Sample, so a chapter's
// trace is deterministic (full index files are then flushed inline, and the clean does not
// pause between two deleted files). The services' intervals
// and SYNC_FLUSH deadlines are measured on the store clock (Options.Clock, clock.System by
// default; deadlines on its monotonic reading). Shutdown stops
// the services, dispatches, commits and flushes what is left, answers SYNC_FLUSH puts still
// waiting, and waits for every goroutine.
//
// # Flushing (ch04-flush)
//
// A put appends under putMu, then CommitLog#submitFlushRequest hands the record to the flush:
//
//   - SYNC_FLUSH: a put whose WAIT property is not "false" gets a GroupCommitRequest for the end
//     of its record (nextOffset), watched by the FlushDiskWatcher and queued in
//     GroupCommitService's requestsWrite; the put's answer (AsyncPutMessage's channel) comes
//     when doCommit has flushed past nextOffset (PUT_OK) or syncFlushTimeout passed first
//     (FLUSH_DISK_TIMEOUT: stored, durability unknown; the broker answers code 10 with the
//     message's id and offsets). Each pass swaps requestsWrite and requestsRead and flushes
//     once for the whole group (group commit).
//   - ASYNC_FLUSH: the put is answered at once; FlushRealTimeService flushes when
//     flushCommitLogLeastPages (4) pages are new, or any byte every flushCommitLogThoroughInterval.
//   - ASYNC_FLUSH + transientStorePoolEnable (masters only): a new CommitLog file takes a
//     buffer of the TransientStorePool (mlocked when the memlock limit allows); puts write into
//     it, CommitRealTimeService copies it into the file (pwrite) when commitCommitLogLeastPages
//     (4) pages are new or every commitCommitLogThoroughInterval, and wakes the flush. Readers
//     (reput, pulls, HA) see committed bytes only: MappedFile's read position is its committed
//     position. A wholly committed file gives its buffer back (zeroed). Files found at start
//     are written through their mapping. A SIGKILL loses what was not committed.
//
// Positions per file: flushedPosition ≤ committedPosition ≤ wrotePosition; per log:
// flushedWhere ≤ committedWhere. After a flush the checkpoint's physicMsgTimestamp becomes the
// store time of the last message flushed (with the pool: the last committed).
//
// # Recovery
//
// Load recovers each ConsumeQueue, then the CommitLog: after a clean shutdown (no abort file)
// normally, checking records from the third-to-last file; after a crash abnormally, from the
// newest file whose first message is not newer than the checkpoint's min(physic, logics) − 3 s
// (with messageIndexSafe also the index time), dispatching every valid record again to the
// ConsumeQueues and the index. Both stop at the first record that fails its checks (magic,
// length, body CRC, PHYSICALOFFSET = position) and truncate there; ConsumeQueue units beyond
// are dropped. After a crash, index files not known to be flushed (endTimestamp past the
// checkpoint's indexMsgTimestamp, or a header never written) are deleted at load and rebuilt
// by that dispatch; an index reaching past the recovered log end is cut back to it.
//
// A power cut (TestPowerCut: every byte past the last flush of each file is zeroed) loses no
// SYNC_FLUSH put that was answered; under ASYNC_FLUSH exactly what lay past flushedWhere. Three
// departures from Java make that hold with ConsumeQueues, index and checkpoint consistent:
// ConsumeQueue recovery starts before the third-to-last file when an earlier file's last unit
// was never written; the checkpoint's logicsMsgTimestamp is written only after every
// ConsumeQueue file is flushed; index files are flushed in order. New files' directories are
// synced, so a file a SYNC_FLUSH put reached keeps its name.
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
//   - consumeQueueTable.mu guards the ConsumeQueue table; DefaultMessageStore.stateMu the life
//     cycle; FlushConsumeQueueService.passMu makes one ConsumeQueue flush pass at a time.
//   - An IndexFile is written only by the reput goroutine; its header values are atomics,
//     written through to the mapping, and a new entry is published by the indexCount store.
//     IndexService.mu guards the file list.
//   - The running flags (runningFlags: shutdown, logicsError, indexError, diskFull) are
//     atomics shared by the parts; any of them makes puts SERVICE_NOT_AVAILABLE, and all but
//     shutdown keep the abort file at shutdown.
//   - GroupCommitService.mu guards requestsWrite (puts append); passMu makes one pass at a time
//     and guards requestsRead. A GroupCommitRequest completes once (CAS): doCommit and the
//     FlushDiskWatcher may race to answer it. FlushDiskWatcher.mu guards its queue.
//   - FlushRealTimeService and CommitRealTimeService each run one pass at a time (passMu): the
//     service goroutine and RunOnce. MappedFileQueue.flushMu and commitMu make one flush and
//     one commit of a log at a time, so flushedWhere and committedWhere only move forward.
//   - A write buffer is written by the appender (putMu) below wrotePosition and read by the
//     commit between committedPosition and wrotePosition; it goes back to the pool only after
//     the file is wholly committed or when its last holder releases a destroyed file.
//     TransientStorePool.mu guards the free list.
//
// # Flush system call
//
// A flush is fdatasync of the file (useMsync selects msync(MS_SYNC) of the dirty range); the
// two measured equal within noise (BenchmarkFlush), so the simpler fdatasync is the default.
//
// Benchmark figures: docs/benchmarks.md.
package store
