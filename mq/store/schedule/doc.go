// Package schedule delivers delayed messages (delay levels): ScheduleMessageService reads
// SCHEDULE_TOPIC_XXXX, where the CommitLog put parks every message stored with DELAY = L
// (queue L-1, real destination in REAL_TOPIC / REAL_QID, ConsumeQueue tagsCode = deliver
// time), and once a message is due puts a copy into its real topic and queue. Consumer retries
// take the same path: the broker's CONSUMER_SEND_MSG_BACK stores the retry message for
// %RETRY%<group> with DELAY = 3 + reconsumeTimes (docs/reference/store-formats.md §11,
// docs/reference/remoting-protocol.md §9.3).
//
// Java: org.apache.rocketmq.store.schedule (ScheduleMessageService, its
// DeliverDelayedMessageTimerTask, DelayOffsetSerializeWrapper). Java's service lives inside
// DefaultMessageStore; here it is a package of its own over the store's public API, created
// and driven by the broker (BrokerController: Initialize loads it, Start starts it on a
// master, Shutdown stops and persists it before the store shuts down).
//
// Layer 2: imports mq/store, mq/primitive, mq/trace and mq/internal/...
//
// # Files, in reading order
//
//	config.go                              Config, ConfigFromStore (config and options), level ↔ queue id
//	schedule_message_service.go            ScheduleMessageService: offsets, Load, Start, Shutdown, Persist
//	deliver_delayed_message_timer_task.go  DoDeliver: executeOnTimeup, deliverMessage, messageTimeup
//	delay_offset_serialize_wrapper.go      delayOffset.json (fastjson dialect) encode/decode
//
// # Delay levels
//
// messageDelayLevel (default "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h")
// gives level n (1-based) its delay; level n ↔ SCHEDULE_TOPIC_XXXX queue n-1. A message is due
// at STORETIMESTAMP + delay(level), the value the store's dispatcher writes into the unit's
// tagsCode (read back with DefaultMessageStore.ReadConsumeQueueUnit); one more than delay(level)
// in the future (a clock that went back) is delivered at once.
//
// # config/delayOffset.json
//
// Level → next SCHEDULE_TOPIC_XXXX queue offset (a store.QueueOffset) still to deliver, written
// by fastjson with the Integer keys unquoted (docs/reference/store-formats.md §7.4):
//
//	{
//		"offsetTable":{1:0,2:5
//		}
//	}
//
// Read with the keys quoted or not. Written atomically with a .bak (internal/configfile) every
// flushDelayOffsetInterval (10 s) and at Shutdown; read at Load, each offset then corrected
// into its queue's [min, max].
//
// # What a delivery writes
//
// A new record in REAL_TOPIC / REAL_QID: body, flag, sysFlag, born timestamp and host, store
// host and reconsumeTimes of the delayed record; tagsCode from TAGS; the properties string of
// the delayed record (so DELAY, REAL_TOPIC and REAL_QID stay in it, as with Java); the in-memory
// properties carry WAIT=false and no DELAY, so the put is not delayed again.
//
// # Goroutines and locks
//
//   - ScheduleMessageTimerThread (ServiceThread): DoDeliver 1 s after Start, then every 100 ms.
//   - ScheduleMessagePersistThread (ServiceThread): Persist every flushDelayOffsetInterval.
//
// With Config.ManualServices (ConfigFromStore copies store.Options.ManualServices) neither
// runs: the caller drives DoDeliver and Persist.
// deliverMu makes passes take turns (the loop's and a direct DoDeliver); mu guards
// offsetTable; fileMu serializes file writes; stateMu the life cycle. No lock is held while
// another is taken except deliverMu → mu (a pass updating an offset) and fileMu → mu (Persist
// taking a snapshot).
package schedule
